// Shortcuts for the two commonest expression shapes, taken per evaluation without running the CEL program:
// a constant (no variable read: evaluated once when compiled, the environment has no clock or randomness) and
// a member path with constant keys (`request.method`, `request.headers['x-user']`). A path answers only when
// every step is a map or plain object holding the key and the end is a string, boolean or number, which is
// exactly what CEL returns for it; anything else (a missing key, a list, a nested map) runs the program, so
// errors and conversions stay CEL's own. Measured in docs/performance.md (issue 34).
import type { parse } from '@bufbuild/cel';

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
  let v = root;
  for (const key of keys) {
    v = memberOf(v, key);
    if (v === undefined) return undefined;
  }
  return typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' ? v : undefined;
}

/** Own members of a plain object, as @bufbuild/cel reads a bound object (Object.entries). */
export function plainMember(container: unknown, key: string): unknown {
  if (typeof container !== 'object' || container === null) return undefined;
  // What @bufbuild/cel's toCel turns into a map (its `constructor.name` test, after its message test); else ask CEL.
  const ctor = (container as { constructor?: { name?: unknown } }).constructor;
  if (ctor?.name !== 'Object' || '$typeName' in container) return undefined;
  return Object.hasOwn(container, key) ? (container as Record<string, unknown>)[key] : undefined;
}
