// AI field transformations (`backend.ai.transformations` / `finalTransformations`, GwModel
// `policies.transformations` / `finalTransformations`): CEL per dotted field of an LLM request body,
// compiled once per snapshot and applied per request. Behaviour: docs/llm-providers.md "Field transformations".
import { celToJson, compileCel, expressionVariables, type CelBindings, type CompiledCel } from '../policy/cel/env.js';
import type { AiProviderEdge__Output as AiProviderEdge } from '../../ir/gen/gw/ir/v1/AiProviderEdge.js';
import { deletePath, setPath, type ChatBody, type Checked } from './chat-request.js';

export interface FieldTransformation {
  field: string;
  expression: CompiledCel;
}

/** One provider's two lists, compiled; `before` runs on the client-format body, `after` on the provider-format one. */
export interface CompiledTransformations {
  before: FieldTransformation[];
  after: FieldTransformation[];
}

type IrList = readonly { field: string; expression: string }[];

/**
 * Compiles both lists; undefined when both are empty. Throws an Error naming the list and index (`at` is
 * the IR place, e.g. `provider openai`) when an expression does not compile: the caller refuses the provider.
 */
export function compileTransformations(
  before: IrList | undefined,
  after: IrList | undefined,
  at: string,
): CompiledTransformations | undefined {
  // A snapshot not decoded from the wire (translator output read as is) leaves empty lists out.
  if ((before?.length ?? 0) + (after?.length ?? 0) === 0) return undefined;
  const compile = (list: IrList | undefined, name: string): FieldTransformation[] =>
    (list ?? []).map((t, i) => {
      try {
        return { field: t.field, expression: compileCel(t.expression, expressionVariables.aiTransformation) };
      } catch (err) {
        throw new Error(`${at ? `${at}: ` : ''}${name}[${i}] (field ${t.field}) ${(err as Error).message}`);
      }
    });
  return { before: compile(before, 'transformations'), after: compile(after, 'finalTransformations') };
}

/** The compiled lists of an edge (or GwModel provider); an Error naming the place, list and field when one does not compile. */
export function providerTransformations(
  lists: Pick<AiProviderEdge, 'transformations' | 'finalTransformations'> | undefined,
  at: string,
): CompiledTransformations | undefined | Error {
  try {
    return lists && compileTransformations(lists.transformations, lists.finalTransformations, at);
  } catch (err) {
    return err as Error;
  }
}

/**
 * The body with every transformation's value set at its field (`null` removes the field). Every expression
 * sees the body as it came in (`llmRequest`), so their order does not matter; the first that fails to
 * evaluate fails the whole list, and the body is then not used at all (never half edited).
 */
export function applyTransformations(
  body: ChatBody,
  list: readonly FieldTransformation[],
  bindings: CelBindings,
  stage: 'transformations' | 'finalTransformations',
): Checked {
  if (list.length === 0) return { ok: true, body };
  const scope: CelBindings = { ...bindings, llmRequest: body };
  const values: unknown[] = [];
  for (const t of list) {
    const v = t.expression.evaluate(scope);
    if (v instanceof Error)
      return { ok: false, field: `${stage} field ${t.field}`, message: `could not be evaluated: ${v.message}` };
    const json = celToJson(v);
    if (json === undefined)
      return { ok: false, field: `${stage} field ${t.field}`, message: 'evaluated to a value with no JSON form' };
    values.push(json);
  }
  const out = structuredClone(body);
  list.forEach((t, i) => {
    const v = values[i];
    if (v === null) deletePath(out, t.field);
    else setPath(out, t.field, v);
  });
  return { ok: true, body: out };
}
