// GwPolicy `transformation` (traffic, or backend on an edge) → the IR `Transformation`. The schema's
// expressions travel as they are; the proxy compiles them once per snapshot, and validate-gw.ts refuses an
// object whose expression would not compile there.
import type { Transformation as ApiTransformation } from '../../api/connection.js';
import type { TransformationInput, TransformationStepInput } from '../../ir/types.js';

type Step = NonNullable<ApiTransformation['request']>;

export function transformationInput(t: ApiTransformation): TransformationInput {
  return {
    ...(t.request ? { request: stepInput(t.request) } : {}),
    ...(t.response ? { response: stepInput(t.response) } : {}),
  };
}

function stepInput(s: Step): TransformationStepInput {
  return {
    set: (s.set ?? []).map((h) => ({ name: h.name, expression: h.value })),
    add: (s.add ?? []).map((h) => ({ name: h.name, expression: h.value })),
    remove: s.remove ?? [],
    ...(s.body !== undefined ? { body: s.body } : {}),
  };
}
