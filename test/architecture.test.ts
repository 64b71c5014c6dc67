// The house's arrows (architecture.json), checked on the source: which folder imports which, no cycle
// between folders, and what the xDS-fed proxy loads at run time.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import rules from '../architecture.json' with { type: 'json' };

const src = path.join(import.meta.dirname, '../src');
const allowed = rules.allowedImports as Record<string, string[]>;
const forbiddenPackages = rules.forbiddenPackages as Record<string, string[]>;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const full = path.join(dir, n);
    return statSync(full).isDirectory() ? walk(full) : /\.ts$/.test(n) && !n.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every import specifier of a file (static, dynamic and re-exports); type-only imports included, since they shape the code too. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] as string,
  );
}

function resolveRelative(from: string, spec: string): string {
  return path.resolve(path.dirname(from), spec).replace(/\.js$/, '.ts');
}

function roomOf(file: string): string {
  const rel = path.relative(src, file).split(path.sep);
  if (rel.length === 1) {
    const base = (rel[0] as string).replace(/\.ts$/, '');
    return base === 'cli' ? 'cli-entry' : base;
  }
  return rel[0] as string;
}

const files = walk(src).filter((f) => !f.includes(`${path.sep}gen${path.sep}`));
const edges = files.flatMap((f) =>
  specifiers(f)
    .filter((s) => s.startsWith('.'))
    .map((s) => ({ from: f, to: resolveRelative(f, s) })),
);

describe('architecture', () => {
  it('names every folder of src/ in architecture.json', () => {
    const rooms = new Set(files.map(roomOf));
    expect([...rooms].filter((r) => !(r in allowed)).sort()).toEqual([]);
  });

  it('imports across folders only along the allowed arrows', () => {
    const bad = edges.flatMap(({ from, to }) => {
      const a = roomOf(from),
        b = roomOf(to);
      return a === b || (allowed[a] ?? []).includes(b)
        ? []
        : [`${path.relative(src, from)} → ${path.relative(src, to)} (${a} may not import ${b})`];
    });
    expect(bad).toEqual([]);
  });

  it('loads no package a folder must stay free of', () => {
    const bad = files.flatMap((f) => {
      const banned = forbiddenPackages[roomOf(f)] ?? [];
      return specifiers(f)
        .filter((s) => banned.some((b) => s === b || s.startsWith(`${b}/`)))
        .map((s) => `${path.relative(src, f)} imports ${s}`);
    });
    expect(bad).toEqual([]);
  });

  it('has no import cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const { from, to } of edges) {
      const a = roomOf(from),
        b = roomOf(to);
      if (a !== b) graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
    expect(cycles(graph)).toEqual([]);
  });

  it('keeps the xDS-fed proxy free of the schema, the translator, the controller and their packages', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const stack = [path.join(src, 'cli/proxy-xds.ts'), path.join(src, 'proxy/runtime.ts')];
    while (stack.length) {
      const f = stack.pop() as string;
      if (seen.has(f)) continue;
      seen.add(f);
      for (const s of specifiers(f)) {
        if (s.startsWith('.')) stack.push(resolveRelative(f, s));
        else packages.add(s);
      }
    }
    const rooms = new Set([...seen].map(roomOf));
    for (const r of ['api', 'translate', 'controller', 'deployer'])
      expect(rooms.has(r), `the proxy loads src/${r}`).toBe(false);
    for (const p of ['@kubernetes/client-node', 'ajv', '@sinclair/typebox'])
      expect(packages.has(p), `the proxy loads ${p}`).toBe(false);
  });
});

/** Strongly connected components with more than one node (or a self-loop): each is a cycle to break. */
function cycles<T>(graph: Map<T, Set<T>>): T[][] {
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
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: T[] = [];
      let w: T;
      do {
        w = stack.pop() as T;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || graph.get(v)?.has(v)) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}
