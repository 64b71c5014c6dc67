// The control plane's CEL environment, built once: standard CEL plus the strings extension, which is the
// subset both the Kubernetes API server (CRD validation rules) and @bufbuild/cel implement. The library
// loads with the first rule compiled (library.ts).
import type { CelValue } from '@bufbuild/cel';
import { celLibrary, type CelLibrary, type Re2 } from './library.js';

let env: ReturnType<CelLibrary['celEnv']> | undefined;

export type CelProgram = (bindings: Record<string, unknown>) => CelValue;

export type CompileResult = { ok: true; program: CelProgram } | { ok: false; message: string };

const compiled = new Map<string, CompileResult>();

/** Parses and plans `expr` once; later calls with the same text reuse the plan. */
export function compileCel(expr: string): CompileResult {
  const hit = compiled.get(expr);
  if (hit) return hit;
  let result: CompileResult;
  const { cel, ext, re2 } = celLibrary();
  env ??= cel.celEnv({ funcs: ext.strings, re2: cachedRe2(re2) });
  try {
    const run = cel.plan(env, cel.parse(expr));
    const program: CelProgram = (bindings) => {
      const out = run(bindings as Parameters<typeof run>[0]);
      if (cel.isCelError(out)) throw new Error(out.message);
      return out;
    };
    result = { ok: true, program };
  } catch (e) {
    result = { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  compiled.set(expr, result);
  return result;
}

/**
 * `matches` with each pattern compiled once: CRD rules match every path and header against the same few
 * literal patterns (Gateway API's path rule), and compiling one costs more than the rest of the rule.
 */
function cachedRe2(re2: Re2): Re2 {
  const compiled = new Map<string, ReturnType<Re2['compile']>>();
  return {
    compile(pattern) {
      let m = compiled.get(pattern);
      if (!m) {
        m = re2.compile(pattern);
        if (compiled.size < 1000) compiled.set(pattern, m);
      }
      return m;
    },
  };
}

/**
 * Converts decoded YAML/JSON into CEL input the way the API server sees it: integral numbers are CEL
 * `int` (the CRD integer type), objects are maps, so `has(self.x)` tests presence.
 */
export function toCelValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCelValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toCelValue(v);
    return out;
  }
  return value;
}

/** Evaluates a validation rule with `self` bound; returns true, false, or an error message. */
export function evalRule(expr: string, self: unknown): boolean | string {
  return evalRuleOnCel(expr, toCelValue(self));
}

/** evalRule for a `self` already converted (toCelValue), so a caller evaluating many rules converts once. */
export function evalRuleOnCel(expr: string, self: unknown): boolean | string {
  const c = compileCel(expr);
  if (!c.ok) return `rule does not compile: ${c.message}`;
  try {
    const out = c.program({ self });
    return typeof out === 'boolean' ? out : `rule returned ${typeof out}, not a boolean`;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
