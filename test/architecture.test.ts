// The house's arrows (architecture.json), checked on the source: which folder imports which, no cycle
// between folders, and what the xDS-fed proxy loads at run time.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import rules from '../architecture.json' with { type: 'json' };
import { cycles, resolveRelative, sourceFiles, specifiers } from './support/module-graph.js';

const src = path.join(import.meta.dirname, '../src');
const allowed = rules.allowedImports as Record<string, string[]>;
const forbiddenPackages = rules.forbiddenPackages as Record<string, string[]>;

function roomOf(file: string): string {
  const rel = path.relative(src, file).split(path.sep);
  if (rel.length === 1) {
    const base = (rel[0] as string).replace(/\.ts$/, '');
    return base === 'cli' ? 'cli-entry' : base;
  }
  return rel[0] as string;
}

const files = sourceFiles(src);
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
