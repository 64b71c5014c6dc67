// Assembles the status of one object from the pieces every gateway translation contributed plus what
// can be said about the object alone (validity, target resolution). Pure and per object, so a change
// recomputes only the statuses it can touch. A GwPolicy's status is policy-status.ts.
import type { GwBackendSpec } from '../../api/index.js';
import {
  condition,
  enforcedCondition,
  rulesCanMatchCondition,
  type Condition,
  type ParentStatus,
  type StatusPiece,
} from './conditions.js';
import { authorizationCelWarningLines } from '../objects/validate-gw.js';
import { refusalText, type FieldRefusal } from '../../coverage/index.js';
import { specRefusals } from './spec-refusals.js';
import { modelRefusals } from '../models/model-refusals.js';
import { inferencePoolParents } from '../models/inference-pool-status.js';
import { newCtx, type TranslateOptions } from '../objects/context.js';
import { translateGwBackend } from '../backends/backends.js';
import { gatewayClassSpec } from '../objects/gateway-api.js';
import { gwSpec } from '../objects/gw-objects.js';
import { backendIdentityFields, identityMissingText } from '../objects/gateway-identity.js';
import { stableStringify } from '../objects/read.js';
import { getObject, type Store } from '../objects/store.js';
import { GROUP, displayName, namespaceOf, splitObjectKey, type StoredObject } from '../objects/types.js';
import { promptCachingRefusals } from '../backends/backend-ai.js';
import type { MergedFields } from '../policies/policy-merge.js';
import type { BackendFull } from '../../api/index.js';
import type { BackendInput } from '../../ir/types.js';
import { backendTlsPolicyConditions } from '../backends/backend-tls-policy.js';
import { MAX_POLICY_ANCESTORS, policyStatus } from './policy-status.js';

export const MAX_BACKEND_CONDITIONS = 8;
export const MAX_MODEL_PARENTS = 16;

export type ObjectStatus = Record<string, unknown>;

/** The status to write for an object, or undefined when this controller has nothing to say about it. */
export function objectStatus(
  store: Store,
  objKey: string,
  pieces: readonly StatusPiece[],
  options: TranslateOptions,
): ObjectStatus | undefined {
  const k = splitObjectKey(objKey);
  const e = k && getObject(store, k.kind, k.key);
  if (!k || !e) return undefined;
  const gen = e.obj.metadata.generation ?? 0;
  const now = options.now;
  const problemText = e.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
  switch (k.kind) {
    case 'GatewayClass': {
      if (gatewayClassSpec(e).controllerName !== options.controllerName) return undefined;
      return {
        conditions: [
          condition(
            'Accepted',
            !problemText,
            problemText ? 'InvalidParameters' : 'Accepted',
            problemText || 'the GatewayClass is accepted',
            gen,
            now,
          ),
        ],
      };
    }
    case 'Gateway':
    case 'ListenerSet': {
      const p = pieces.find((x) => x.kind === 'gateway' || x.kind === 'listenerSet');
      return p && (p.kind === 'gateway' || p.kind === 'listenerSet') ? { ...p.status } : undefined;
    }
    case 'HTTPRoute':
    case 'GRPCRoute': {
      const parents = parentsOf(pieces);
      return parents.length ? { parents } : undefined;
    }
    case 'GwModel': {
      // The same list the IR Model carries (model-refusals.ts): the status and the proxy never disagree.
      const refused = enforcedCondition(refusalText(modelRefusals(e)), '', gen, now);
      const parents = parentsOf(pieces).slice(0, MAX_MODEL_PARENTS);
      return { parents: refused ? parents.map((p) => ({ ...p, conditions: [...p.conditions, refused] })) : parents };
    }
    case 'InferencePool': {
      const parents = inferencePoolParents(pieces);
      return parents.length ? { parents } : undefined;
    }
    case 'GwBackend':
      return {
        conditions: backendConditions(store, e, problemText, pieces, options).slice(0, MAX_BACKEND_CONDITIONS),
      };
    case 'GwParameters':
      return parametersStatus(e, problemText, gen, now);
    case 'GwPolicy':
      return policyStatus(store, e, pieces, problemText, options);
    case 'BackendTLSPolicy':
      return backendTlsPolicyStatus(store, e, pieces, options);
    default:
      return undefined;
  }
}

function parametersStatus(e: StoredObject, problemText: string, gen: number, now: string): ObjectStatus {
  const spec = gwSpec('GwParameters', e);
  const refused = spec && enforcedCondition(refusalText(specRefusals('GwParameters', spec)), '', gen, now);
  return {
    conditions: [
      condition(
        'Accepted',
        !problemText,
        problemText ? 'Invalid' : 'Accepted',
        problemText || 'parameters are valid',
        gen,
        now,
      ),
      ...(refused ? [refused] : []),
    ],
  };
}

function backendTlsPolicyStatus(
  store: Store,
  e: StoredObject,
  pieces: readonly StatusPiece[],
  options: TranslateOptions,
): ObjectStatus | undefined {
  // Ancestors are the Gateways of ours whose routes reach a selected Service; none: nothing to say.
  const gateways = [...new Set(pieces.flatMap((p) => (p.kind === 'backendTlsPolicy' ? [p.gateway] : [])))]
    .sort()
    .slice(0, MAX_POLICY_ANCESTORS);
  if (gateways.length === 0) return undefined;
  const conditions = backendTlsPolicyConditions(newCtx(store, options), e);
  return {
    ancestors: gateways.map((g) => ({
      ancestorRef: {
        group: GROUP.gateway,
        kind: 'Gateway',
        namespace: namespaceOf(g),
        name: g.slice(g.indexOf('/') + 1),
      },
      controllerName: options.controllerName,
      conditions,
    })),
  };
}

function parentsOf(pieces: readonly StatusPiece[]): ParentStatus[] {
  return pieces
    .flatMap((p) => (p.kind === 'parent' ? [[stableStringify(p.parent.parentRef), p.parent] as const] : []))
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([, p]) => p);
}

function backendConditions(
  store: Store,
  e: StoredObject,
  problemText: string,
  pieces: readonly StatusPiece[],
  options: TranslateOptions,
): Condition[] {
  const gen = e.obj.metadata.generation ?? 0;
  const now = options.now;
  const spec = gwSpec('GwBackend', e);
  if (problemText || !spec) return [condition('Accepted', false, 'Invalid', problemText, gen, now)];
  const { refProblems, backend, targetPolicies } = translateGwBackend(newCtx(store, options), e.key, spec);
  const refused = enforcedCondition(
    refusalText([
      ...specRefusals('GwBackend', spec),
      ...ownPromptCachingRefusals(e.key, spec, backend, targetPolicies),
    ]),
    unservedIdentity(spec, pieces),
    gen,
    now,
  );
  return [
    condition('Accepted', true, 'Accepted', 'the backend is valid', gen, now),
    condition(
      'ResolvedRefs',
      refProblems.length === 0,
      refProblems.length ? 'RefNotFound' : 'ResolvedRefs',
      refProblems.join('; ') || 'all references resolved',
      gen,
      now,
    ),
    ...(refused ? [refused] : []),
    ...optional(rulesCanMatchCondition(authorizationCelWarningLines(spec), gen, now)),
  ];
}

/**
 * Its `certificateSource: SPIFFE` settings on each Gateway whose proxy has no workload identity (issue 38):
 * those Gateways' routes leave the backend out, whatever the Gateways with an identity do. One sentence, the
 * Gateways named up to NAMED_GATEWAYS (gateway-identity.ts).
 */
function unservedIdentity(spec: GwBackendSpec, pieces: readonly StatusPiece[]): string {
  const gateways = [...new Set(pieces.flatMap((p) => (p.kind === 'identityMissing' ? [p.gateway] : [])))].sort();
  if (!gateways.length) return '';
  const fields = backendIdentityFields(spec).join(', ');
  const those = gateways.length > 1 ? 'those Gateways' : 'that Gateway';
  return `${identityMissingText(`${fields}: SPIFFE`, gateways)}, so the routes of ${those} leave this backend out (ResolvedRefs=False, InvalidBackendTLS)`;
}

const optional = <T>(v: T | undefined): T[] => (v === undefined ? [] : [v]);

/** The GwBackend's own `promptCaching` (backend-wide or a provider's) on a provider or fixed model that takes no breakpoints. */
function ownPromptCachingRefusals(
  key: string,
  spec: GwBackendSpec,
  backend: BackendInput,
  own: Record<string, BackendFull>,
): FieldRefusal[] {
  const source = displayName('GwBackend', key);
  const merged = (ai: BackendFull['ai']) => ({
    fields: ai ? { 'backend.ai': ai } : {},
    provenance: ai ? { 'backend.ai': { source } } : {},
  });
  const providers = (backend.ai?.groups ?? []).flatMap((g) => g.providers ?? []);
  const perProvider = Object.fromEntries(
    Object.entries(own).map(([name, p]) => [name, merged(p.ai ?? spec.policies?.ai)]),
  );
  return promptCachingRefusals(
    providers,
    merged(spec.policies?.ai) as MergedFields,
    perProvider as Record<string, MergedFields>,
  );
}
