// src/translate has no import cycle between its files (issue 13): the module graph is computed from the
// sources (every import and re-export, type-only ones included) and each strongly connected component of
// more than one file is listed.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph } from '../support/module-graph.js';

const root = path.resolve(import.meta.dirname, '../../src/translate');

/** File (relative to src/translate) → the src/translate files it imports. */
function translateGraph(): Map<string, string[]> {
  const rel = (f: string) => path.relative(root, f);
  return new Map([...importGraph(root)].map(([f, to]) => [rel(f), [...to].map(rel).sort()]));
}

describe('src/translate module graph', () => {
  it('finds a cycle when there is one (the check itself works)', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has no import cycle between files', () => {
    const graph = translateGraph();
    expect(graph.size).toBeGreaterThan(20);
    expect(cycles(graph)).toEqual([]);
  });
});
