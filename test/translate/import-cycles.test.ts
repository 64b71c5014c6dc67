// src/translate has no import cycle between its files (issue 13): the module graph is computed from the
// sources (every import and re-export, type-only ones included) and each strongly connected component of
// more than one file is listed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../src/translate');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** File (relative to src/translate) → the src/translate files it imports. */
function translateGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(root)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:from|import)\s*'(\.{1,2}\/[^']+)'/g)]
      .map((m) => path.resolve(path.dirname(file), (m[1] as string).replace(/\.js$/, '.ts')))
      .filter((t) => t.startsWith(`${root}${path.sep}`))
      .map((t) => path.relative(root, t));
    graph.set(path.relative(root, file), [...new Set(targets)].sort());
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
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
