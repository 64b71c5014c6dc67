// `metadata` of a processor: CEL expressions over the client's call (`request`, `jwt`, `mcp`),
// evaluated per call into JSON values for the processor request.
import {
  celToJson as toJson,
  compileCel,
  expressionVariables,
  isCelError,
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
