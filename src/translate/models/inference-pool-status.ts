// The Gateway API Inference Extension's InferencePool status (`status.parents`, v1): one entry per Gateway of
// ours through which a GwModel sends to the pool, conditions Accepted and ResolvedRefs. Only this
// controller's entries are written (controllerName); other controllers' stay (controller/status-merge.ts).
import { condition, type ParentStatus, type StatusPiece } from '../status/conditions.js';
import { stableStringify } from '../objects/read.js';
import { GROUP, displayName, objectKey, type StoredObject } from '../objects/types.js';
import type { GwModelSpec } from '../../api/index.js';
import { read, type Ctx } from '../objects/context.js';
import { INFERENCE_GROUP, type ModelBackend } from './model-backend.js';

/** At most this many parents (the CRD's maxItems). */
export const MAX_POOL_PARENTS = 32;

/**
 * The entry a GwModel `m` contributes to the InferencePool its backendRef names, for Gateway `gw`: Accepted when
 * `attached` (the model is served there; else `why`), ResolvedRefs False (InvalidExtensionRef) when the pool's
 * endpoint picker reference does not resolve.
 */
export function inferencePoolPiece(
  ctx: Ctx,
  gw: StoredObject,
  m: StoredObject,
  spec: GwModelSpec | undefined,
  backend: ModelBackend | undefined,
  outcome: { attached: boolean; why: string },
): [string, StatusPiece] | undefined {
  const ref = spec?.custom?.backendRef;
  if (!ref || ref.kind !== 'InferencePool' || (ref.group ?? INFERENCE_GROUP) !== INFERENCE_GROUP) return undefined;
  const ns = m.obj.metadata.namespace ?? '';
  const pool = read(ctx, 'InferencePool', `${ns}/${ref.name}`);
  if (!pool) return undefined;
  const gen = pool.obj.metadata.generation ?? 0;
  const now = ctx.options.now;
  const model = displayName('GwModel', m.key);
  const problem = backend && 'problem' in backend ? backend.problem : undefined;
  const pickerProblem = problem?.includes('endpointPickerRef') ? problem : undefined;
  const poolProblem = problem && !pickerProblem ? problem : undefined;
  const accepted = outcome.attached && !poolProblem;
  const parent: ParentStatus = {
    parentRef: {
      group: GROUP.gateway,
      kind: 'Gateway',
      namespace: gw.obj.metadata.namespace ?? '',
      name: gw.obj.metadata.name,
    },
    controllerName: ctx.options.controllerName,
    conditions: [
      condition(
        'Accepted',
        accepted,
        accepted ? 'Accepted' : poolProblem ? 'NotSupportedByParent' : 'HTTPRouteNotAccepted',
        accepted
          ? pickerProblem
            ? `${model} refers to the pool on this Gateway; it is not called until the references resolve`
            : `${model} sends to the pool through this Gateway`
          : (poolProblem ?? `${model} is not attached to this Gateway: ${outcome.why || 'see its status'}`),
        gen,
        now,
      ),
      condition(
        'ResolvedRefs',
        !pickerProblem,
        pickerProblem ? 'InvalidExtensionRef' : 'ResolvedRefs',
        pickerProblem ?? 'the endpoint picker reference resolved',
        gen,
        now,
      ),
    ],
  };
  return [objectKey('InferencePool', pool.key), { kind: 'parent', parent }];
}

/** One entry per Gateway: an accepted one wins over another GwModel's that is not, then the first by model. */
export function inferencePoolParents(pieces: readonly StatusPiece[]): ParentStatus[] {
  const byParent = new Map<string, ParentStatus>();
  for (const p of pieces) {
    if (p.kind !== 'parent') continue;
    const key = stableStringify(p.parent.parentRef);
    const had = byParent.get(key);
    const accepted = (s: ParentStatus) => s.conditions.some((c) => c.type === 'Accepted' && c.status === 'True');
    if (!had || (!accepted(had) && accepted(p.parent))) byParent.set(key, p.parent);
  }
  return [...byParent.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, p]) => p)
    .slice(0, MAX_POOL_PARENTS);
}
