// The source module graph, shared by the architecture test (arrows between src/ folders) and the import-cycle
// test (no cycle between src/translate files): which files exist, what each imports, and the cycles of a graph.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Every .ts source under `dir` (declaration files and generated `gen/` folders left out). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const full = path.join(dir, n);
    if (statSync(full).isDirectory()) return n === 'gen' ? [] : sourceFiles(full);
    return n.endsWith('.ts') && !n.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every import specifier of a file (static, dynamic and re-exports); type-only imports included, since they shape the code too. */
export function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] as string,
  );
}

/** The file a relative specifier names (`./x.js` → `/abs/x.ts`). */
export function resolveRelative(from: string, spec: string): string {
  return path.resolve(path.dirname(from), spec).replace(/\.js$/, '.ts');
}

/** The files under `dir` each file under `dir` imports (absolute paths). */
export function importGraph(dir: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(dir)) {
    const targets = specifiers(file)
      .filter((s) => s.startsWith('.'))
      .map((s) => resolveRelative(file, s))
      .filter((t) => t.startsWith(`${dir}${path.sep}`));
    graph.set(file, new Set(targets));
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one node (or a self-loop): each is a cycle to break. */
export function cycles<T>(graph: Map<T, Iterable<T>>): T[][] {
  let index = 0;
  const idx = new Map<T, number>(),
    low = new Map<T, number>(),
    on = new Set<T>(),
    stack: T[] = [],
    out: T[][] = [];
  const visit = (v: T): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    const next = [...(graph.get(v) ?? [])];
    for (const w of next) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) !== idx.get(v)) return;
    const comp: T[] = [];
    let w: T;
    do {
      w = stack.pop() as T;
      on.delete(w);
      comp.push(w);
    } while (w !== v);
    if (comp.length > 1 || next.includes(v)) out.push(comp.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}
