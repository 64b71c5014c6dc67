// Matching concrete field paths (`spec.targets[3].static.port`) and schema leaf paths against the
// coverage table's patterns; one place so the test, the matrix and refusals agree.
import type { Coverage, CoverageTable } from './types.js';

/** `spec.a[3].b` → `spec.a[].b`. */
export const normalize = (path: string): string => path.replace(/\[\d+\]/g, '[]');

/** Whether `pattern` covers the (normalized) `path`. */
export function covers(pattern: string, path: string): boolean {
  if (!pattern.endsWith('.*')) return pattern === path;
  const root = pattern.slice(0, -2);
  return path === root || path.startsWith(`${root}.`) || path.startsWith(`${root}[]`);
}

// Tables are module constants and a normalized path's answer never changes: memoized per table and path
// (bounded, since free-form maps put user keys into paths).
const memo = new WeakMap<CoverageTable, Map<string, [string, Coverage] | undefined>>();
const MEMO_MAX = 50_000;

/** The most specific entry covering `path`: [pattern, coverage], or undefined. */
export function classify(table: CoverageTable, path: string): [string, Coverage] | undefined {
  const p = normalize(path);
  let m = memo.get(table);
  if (!m) memo.set(table, (m = new Map()));
  if (m.has(p)) return m.get(p);
  const hit = scan(table, p);
  if (m.size >= MEMO_MAX) m.clear();
  m.set(p, hit);
  return hit;
}

const nearestMemo = new WeakMap<CoverageTable, Map<string, [string, Coverage] | null>>();

/**
 * classify for a normalized `path`, or else for its nearest ancestor (a map or free-form object is one
 * schema leaf, so the values under it are classified by it); memoized like classify.
 */
export function classifyNearest(table: CoverageTable, path: string): [string, Coverage] | undefined {
  let m = nearestMemo.get(table);
  if (!m) nearestMemo.set(table, (m = new Map()));
  const held = m.get(path);
  if (held !== undefined) return held ?? undefined;
  let hit: [string, Coverage] | undefined;
  for (let p = path; p;) {
    hit = classify(table, p);
    if (hit) break;
    const parent = p.replace(/(\.[^.[]+|\[\])$/, '');
    if (parent === p) break;
    p = parent;
  }
  if (m.size >= MEMO_MAX) m.clear();
  m.set(path, hit ?? null);
  return hit;
}

function scan(table: CoverageTable, p: string): [string, Coverage] | undefined {
  let best: [string, Coverage] | undefined;
  for (const [pattern, c] of Object.entries(table)) {
    if (!covers(pattern, p)) continue;
    const rank = pattern.endsWith('.*') ? pattern.length - 2 : pattern.length + 1;
    const bestRank = best ? (best[0].endsWith('.*') ? best[0].length - 2 : best[0].length + 1) : -1;
    if (rank > bestRank) best = [pattern, c];
  }
  return best;
}

/** How many segments (`.`-separated, `[]` kept on its segment) the pattern's root has. */
export function patternDepth(pattern: string): number {
  return (pattern.endsWith('.*') ? pattern.slice(0, -2) : pattern).split('.').length;
}

/** The concrete path cut to the pattern's depth: `spec.traffic.csrf.additionalOrigins[0]` for `spec.traffic.csrf.*` → `spec.traffic.csrf`. */
export function cutTo(path: string, depth: number): string {
  return path.split('.').slice(0, depth).join('.');
}

const childMemo = new WeakMap<CoverageTable, Map<string, string[]>>();

/** The field names the table knows directly under the normalized `path` (`spec.traffic` → `csrf`, `cors`, …). */
export function childNames(table: CoverageTable, path: string): string[] {
  let m = childMemo.get(table);
  if (!m) childMemo.set(table, (m = new Map()));
  let names = m.get(path);
  if (names) return names;
  const prefix = `${path}.`;
  const found = new Set<string>();
  for (const pattern of Object.keys(table)) {
    if (!pattern.startsWith(prefix)) continue;
    const name = /^[^.[]+/.exec(pattern.slice(prefix.length))?.[0];
    if (name && name !== '*') found.add(name);
  }
  names = [...found];
  if (m.size >= MEMO_MAX) m.clear();
  m.set(path, names);
  return names;
}
