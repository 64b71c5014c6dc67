// No file of src/ imports another in a circle (issue 13): the module graph is computed from the sources
// (every import and re-export, type-only ones included; generated code left out) and each strongly
// connected component of more than one file is listed. Cycles between folders are architecture.test.ts's.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph } from './support/module-graph.js';

const root = path.resolve(import.meta.dirname, '../src');

/** File (relative to src/) → the src/ files it imports. */
function sourceGraph(): Map<string, string[]> {
  const rel = (f: string) => path.relative(root, f);
  return new Map(
    [...importGraph(root)]
      .filter(([f]) => !f.includes(`${path.sep}gen${path.sep}`))
      .map(([f, to]) => [rel(f), [...to].map(rel).sort()]),
  );
}

describe('src/ module graph', () => {
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
    const graph = sourceGraph();
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.has('translate/translate.ts')).toBe(true);
    expect(cycles(graph)).toEqual([]);
  });
});
