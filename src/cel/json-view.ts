// A parsed JSON body as CEL reads it, without converting it first: objects become CEL maps whose members are
// read straight from the object (no per-read `Object.entries` copy, as @bufbuild/cel makes of a bound plain
// object), arrays become CEL lists over the array, and each such value remembers the JSON it stands for, so an
// expression that carries a part of the body over whole (`request.json.messages`) gives that JSON back as it is
// instead of walking it through the library's conversion of every element (docs/performance.md, issue 34).
import type { CelList, CelMap } from '@bufbuild/cel';
import { celLibrary } from './library.js';

/**
 * Where a view keeps the JSON it stands for (`JSON.parse` output, plain data whose every number is finite): a
 * symbol of this module, so nothing else can set or read it (a WeakMap entry per view costs more, in the loop
 * and in the collector, measured).
 */
const SOURCE = Symbol('gw.celJsonSource');

/**
 * Text that may hold a number `JSON.parse` turns into ±Infinity (a run of 200 digits, or an exponent of three
 * digits or more): such a body is bound as plain data, so a non-finite number still fails where CEL meets it.
 */
const MAYBE_NOT_FINITE = /\d{200}|[eE]\+?\d{3}/;

/** The body's JSON as a CEL value (`{}` when it is not JSON, as before any view existed). */
export function celJsonOf(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    return {};
  }
  return MAYBE_NOT_FINITE.test(text) ? parsed : viewOf(parsed);
}

/**
 * Plain JSON data (every number finite, no other kind of value) as a CEL value, the way a body view is: a map
 * shortcut's result (shortcut.ts), so a body made of it is this data serialized.
 */
export function celJsonData(data: Record<string, unknown>): unknown {
  return viewOf(data);
}

/** The JSON a value read from a body view stands for, or undefined when it is not one. */
export function jsonSourceOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? (value as { [SOURCE]?: unknown })[SOURCE] : undefined;
}

function viewOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const { cel } = celLibrary();
  const view: (CelList | CelMap) & { [SOURCE]?: unknown } = Array.isArray(value)
    ? cel.celList(value)
    : cel.celMap(new ObjectMembers(value as Record<string, unknown>) as unknown as ReadonlyMap<string, never>);
  view[SOURCE] = value;
  return view;
}

/** A JSON object's own members as the map @bufbuild/cel wraps (it converts each value it hands out). */
class ObjectMembers implements ReadonlyMap<string, unknown> {
  constructor(private readonly object: Record<string, unknown>) {}
  get size(): number {
    return Object.keys(this.object).length;
  }
  has(key: unknown): boolean {
    return typeof key === 'string' && Object.hasOwn(this.object, key);
  }
  get(key: unknown): unknown {
    return this.has(key) ? viewOf(this.object[key as string]) : undefined;
  }
  forEach(each: (value: unknown, key: string, map: ReadonlyMap<string, unknown>) => void, self?: unknown): void {
    for (const key of Object.keys(this.object)) each.call(self, viewOf(this.object[key]), key, this);
  }
  keys(): MapIterator<string> {
    return Object.keys(this.object).values();
  }
  values(): MapIterator<unknown> {
    return Object.keys(this.object)
      .map((k) => viewOf(this.object[k]))
      .values();
  }
  entries(): MapIterator<[string, unknown]> {
    return Object.keys(this.object)
      .map((k): [string, unknown] => [k, viewOf(this.object[k])])
      .values();
  }
  [Symbol.iterator](): MapIterator<[string, unknown]> {
    return this.entries();
  }
}
