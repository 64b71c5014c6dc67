// Shortcuts for the commonest expression shapes, taken per evaluation without running the CEL program: a
// constant (no variable read: evaluated once when compiled, the environment has no clock or randomness), a
// member path with constant keys (`request.method`, `request.headers['x-user']`), strings joined with `+` from
// string constants and such paths (`request.headers['x-user'] + '@' + request.host`), and a map literal with
// distinct constant string keys whose values are string or boolean constants or such paths (a body built from
// the request's JSON). A path answers only when every step is a map or plain object holding the key and the end
// is a string, boolean or finite number (in a map literal also a part of the body's JSON, carried over whole),
// which is exactly what CEL returns for it; anything else (a missing key, a list, a nested map, a joined part
// that is not a string) runs the program, so errors and conversions stay CEL's own. Measured in
// docs/performance.md (issue 34).
import type { parse } from '@bufbuild/cel';
import { celJsonData, jsonSourceOf } from './json-view.js';

type Expr = ReturnType<typeof parse>['expr'];

/** Reads one member of a map-like value; undefined when this is not a map or plain object, or has no such key. */
export type MemberOf = (container: unknown, key: string) => unknown;

/** `variable` followed by constant keys, when the expression is only that. */
export function memberPath(e: Expr | undefined): { variable: string; keys: string[] } | undefined {
  const keys: string[] = [];
  for (let at = e; at;) {
    const k = at.exprKind;
    if (k.case === 'identExpr') return { variable: k.value.name, keys: keys.reverse() };
    if (k.case === 'selectExpr' && !k.value.testOnly) {
      keys.push(k.value.field);
      at = k.value.operand;
      continue;
    }
    const key = k.case === 'callExpr' && k.value.function === '_[_]' && !k.value.target ? k.value.args[1] : undefined;
    if (key?.exprKind.case !== 'constExpr' || key.exprKind.value.constantKind.case !== 'stringValue') return undefined;
    keys.push(key.exprKind.value.constantKind.value);
    at = (k.value as { args: Expr[] }).args[0];
  }
  return undefined;
}

/** The value at `keys` under `root` when it is a string, boolean or number; undefined means "ask CEL". */
export function readPath(root: unknown, keys: readonly string[], memberOf: MemberOf): unknown {
  const v = valueAt(root, keys, memberOf);
  return typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' ? v : undefined;
}

/** The value at `keys` under `root`, whatever it is; undefined when a step is missing. */
function valueAt(root: unknown, keys: readonly string[], memberOf: MemberOf): unknown {
  let v = root;
  for (const key of keys) {
    v = memberOf(v, key);
    if (v === undefined) return undefined;
  }
  return v;
}

/** An expression's value read from its variables without the program, or undefined: "ask CEL". */
export type Shortcut = (bindings: Readonly<Record<string, unknown>>, memberOf: MemberOf) => unknown;

/**
 * The shortcut of a joined string or a map literal (a lone path is `memberPath`'s); undefined when the
 * expression has another shape.
 */
export function shortcutOf(e: Expr | undefined): Shortcut | undefined {
  return joinedText(e) ?? mapLiteral(e);
}

/** A string constant, a member path, or `a + b` of those: the string, or undefined when a part is not one. */
function joinedText(e: Expr | undefined): Shortcut | undefined {
  const k = e?.exprKind;
  if (k?.case !== 'callExpr' || k.value.function !== '_+_' || k.value.target || k.value.args.length !== 2)
    return undefined;
  const [a, b] = k.value.args.map(textPart);
  if (!a || !b) return undefined;
  return (bindings, memberOf) => {
    const x = a(bindings, memberOf);
    if (typeof x !== 'string') return undefined;
    const y = b(bindings, memberOf);
    return typeof y === 'string' ? x + y : undefined;
  };
}

function textPart(e: Expr | undefined): Shortcut | undefined {
  const c = constantOf(e);
  if (typeof c === 'string') return () => c;
  const path = memberPath(e);
  if (path) return (bindings, memberOf) => readPath(bindings[path.variable], path.keys, memberOf);
  return joinedText(e);
}

/** A string or boolean constant; undefined for any other expression. */
function constantOf(e: Expr | undefined): string | boolean | undefined {
  const k = e?.exprKind;
  if (k?.case !== 'constExpr') return undefined;
  const c = k.value.constantKind;
  return c.case === 'stringValue' || c.case === 'boolValue' ? c.value : undefined;
}

/**
 * `{'k': v, ...}` with distinct constant string keys, each value a string or boolean constant or a member
 * path: a CEL map over the JSON object of those values (the body's JSON view, so a body made of it is that
 * object serialized), or undefined when a value read is not a string, boolean, finite number or JSON part.
 */
function mapLiteral(e: Expr | undefined): Shortcut | undefined {
  const k = e?.exprKind;
  if (k?.case !== 'structExpr' || k.value.messageName !== '' || k.value.entries.length === 0) return undefined;
  const entries: [string, Shortcut][] = [];
  for (const entry of k.value.entries) {
    const key = entry.keyKind.case === 'mapKey' ? constantOf(entry.keyKind.value) : undefined;
    if (entry.optionalEntry || typeof key !== 'string' || !plainKey(key) || entries.some(([name]) => name === key))
      return undefined;
    const c = constantOf(entry.value);
    const path = c === undefined ? memberPath(entry.value) : undefined;
    if (c !== undefined) entries.push([key, () => c]);
    else if (path) entries.push([key, (bindings, memberOf) => jsonAt(bindings[path.variable], path.keys, memberOf)]);
    else return undefined;
  }
  return (bindings, memberOf) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of entries) {
      const v = value(bindings, memberOf);
      if (v === undefined) return undefined;
      out[key] = v;
    }
    return celJsonData(out);
  };
}

/** A key a plain object keeps as it is, in the order set: not an array index (listed first) nor `__proto__`. */
const plainKey = (key: string): boolean => key !== '__proto__' && !/^(?:0|[1-9]\d*)$/.test(key);

/** The JSON at `keys`: a string, boolean or finite number, or the JSON a body view stands for; else undefined. */
function jsonAt(root: unknown, keys: readonly string[], memberOf: MemberOf): unknown {
  const v = valueAt(root, keys, memberOf);
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  return jsonSourceOf(v);
}

/** Own members of a plain object, as @bufbuild/cel reads a bound object (Object.entries). */
export function plainMember(container: unknown, key: string): unknown {
  if (typeof container !== 'object' || container === null) return undefined;
  // What @bufbuild/cel's toCel turns into a map (its `constructor.name` test, after its message test); else ask CEL.
  const ctor = (container as { constructor?: { name?: unknown } }).constructor;
  if (ctor?.name !== 'Object' || '$typeName' in container) return undefined;
  return Object.hasOwn(container, key) ? (container as Record<string, unknown>)[key] : undefined;
}
