// `metadata` of a processor: CEL expressions over the client's call (`request`, `jwt`, `mcp`),
// evaluated per call into JSON values for the processor request.
import type { CelValue } from '@bufbuild/cel';
import {
  compileCel,
  expressionVariables,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  type CelBindings,
  type CompiledCel,
} from '../../policy/cel/env.js';

export type MetadataPlan = ReadonlyArray<readonly [string, CompiledCel]>;

/** Throws an Error naming the entry when an expression does not compile. */
export function compileMetadata(metadata: Record<string, string>): MetadataPlan {
  return Object.keys(metadata)
    .sort()
    .map((name) => {
      try {
        return [name, compileCel(metadata[name] ?? '', expressionVariables.guardrailMetadata)] as const;
      } catch (err) {
        throw new Error(`metadata ${JSON.stringify(name)} ${(err as Error).message}`);
      }
    });
}

/** Entries whose expression fails (e.g. `jwt.sub` without a token) are left out; the call goes on. */
export function evaluateMetadata(plan: MetadataPlan, bindings: CelBindings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, cel] of plan) {
    const v = cel.evaluate(bindings);
    if (v instanceof Error || isCelError(v)) continue;
    const json = toJson(v);
    if (json !== undefined) out[name] = json;
  }
  return out;
}

function toJson(v: CelValue | unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (isCelUint(v)) return Number.isSafeInteger(Number(v.value)) ? Number(v.value) : v.value.toString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (isCelList(v)) return [...v].map(toJson);
  if (isCelMap(v)) {
    const o: Record<string, unknown> = {};
    for (const [k, val] of v) o[String(isCelUint(k) ? k.value : k)] = toJson(val);
    return o;
  }
  // Bound values can come back as they went in (plain objects and arrays from the call context).
  if (Array.isArray(v)) return v.map(toJson);
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, val]) => [k, toJson(val)]));
  }
  return undefined; // types and messages have no JSON form here
}
