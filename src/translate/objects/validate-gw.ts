// Checks of a Gw object past its schema: validate.ts runs them only once validateManifest found nothing, so
// the spec is read as the schema's type. CEL authorization rules are compiled with the proxy's own
// environment, and the structural rules translation relies on are stated once more where the schema is silent.
import type { GwBackendSpec, GwModelSpec, GwPolicySpec } from '../../api/index.js';
import {
  celCompileProblem,
  celMemberWarnings,
  connectionVariables,
  expressionVariables,
  type CelVariable,
} from '../../cel/data-plane.js';
import { schemaChecked } from './gw-objects.js';
import type { AuthorizationSpec, GwKind } from './gw-types.js';

export type Bad = (path: string, message: string) => void;

const BACKEND_KINDS = ['ai', 'static', 'dynamicForwardProxy', 'mcp', 'aws', 'a2a'] as const;

/** The variables the proxy's CEL authorization binds (src/proxy/auth/authorization.ts compiles with the same list). */
const AUTHORIZATION_VARIABLES: readonly CelVariable[] = ['jwt', 'request', 'mcp', 'a2a', 'apiKey', 'extauthz'];

/** Where a GwPolicy or a GwBackend sets CEL authorization rules. */
export type CelAuthorizations = Pick<GwPolicySpec, 'traffic' | 'backend' | 'frontend'> &
  Pick<GwBackendSpec, 'policies'>;

/**
 * `traffic.authorization` and `mcp.authorization` rules compiled with the data plane's CEL environment: one the
 * proxy would reject would NACK the whole snapshot, so the object is refused here (Accepted=False) and left out.
 * `gw validate` calls it too, with a manifest that passed the schema.
 */
export function authorizationCelProblems(s: CelAuthorizations, bad: Bad): void {
  for (const [path, expression, variables] of authorizationExpressions(s)) {
    const why = celCompileProblem(expression, variables);
    if (why) bad(path, why);
  }
}

/**
 * Rules that compile but read a member their variable never has (`mcp.tools`, `request.header`): such a
 * read always fails, so a Deny rule on it never denies. A warning (`gw validate`), not a problem.
 */
export function authorizationCelWarnings(s: CelAuthorizations, warn: Bad): void {
  for (const [path, expression] of authorizationExpressions(s))
    for (const why of celMemberWarnings(expression)) warn(path, why);
}

/** Every authorization rule expression of the object: [field path, expression, the variables it may name]. */
function authorizationExpressions(s: CelAuthorizations): [string, string, readonly CelVariable[]][] {
  const places: [string, AuthorizationSpec | undefined, readonly CelVariable[]][] = [
    ['traffic.authorization', s.traffic?.authorization, AUTHORIZATION_VARIABLES],
    ['backend.mcp.authorization', s.backend?.mcp?.authorization, AUTHORIZATION_VARIABLES],
    ['policies.mcp.authorization', s.policies?.mcp?.authorization, AUTHORIZATION_VARIABLES],
    ['frontend.networkAuthorization', s.frontend?.networkAuthorization, connectionVariables],
  ];
  return places.flatMap(([path, authz, variables]) =>
    (authz?.policy.matchExpressions ?? []).map((e, i): [string, string, readonly CelVariable[]] => [
      `spec.${path}.policy.matchExpressions[${i}]`,
      e,
      variables,
    ]),
  );
}

/**
 * Transformation and direct-response expressions compiled with the proxy's environment and the variables the
 * proxy binds there: one it would reject would NACK the snapshot, so the object is refused here, by field path.
 */
function shapingCelProblems(
  s: Pick<GwPolicySpec, 'traffic' | 'backend'> & Pick<GwBackendSpec, 'policies'>,
  bad: Bad,
): void {
  const check = (path: string, source: string | undefined, vars: readonly CelVariable[]): void => {
    const why = source === undefined ? undefined : celCompileProblem(source, vars);
    if (why) bad(path, why);
  };
  const places = [
    ['spec.traffic.transformation', s.traffic?.transformation],
    ['spec.backend.transformation', s.backend?.transformation],
    ['spec.policies.transformation', s.policies?.transformation],
  ] as const;
  for (const [path, t] of places)
    for (const side of ['request', 'response'] as const) {
      const step = t?.[side];
      const vars =
        side === 'request' ? expressionVariables.transformationRequest : expressionVariables.transformationResponse;
      for (const field of ['set', 'add'] as const)
        (step?.[field] ?? []).forEach((h, i) => check(`${path}.${side}.${field}[${i}].value`, h.value, vars));
      check(`${path}.${side}.body`, step?.body, vars);
    }
  check('spec.backend.health.unhealthyCondition', s.backend?.health?.unhealthyCondition, unhealthyVars);
  check('spec.policies.health.unhealthyCondition', s.policies?.health?.unhealthyCondition, unhealthyVars);
  const d = s.traffic?.directResponse;
  if (!d) return;
  const entries = d.conditional?.map((c, i) => [`conditional[${i}].response.`, c.response, c.condition] as const) ?? [
    ['', d, undefined] as const,
  ];
  for (const [at, r, condition] of entries) {
    const path = `spec.traffic.directResponse.${at}`;
    check(`${path.replace(/response\.$/, '')}condition`, condition, expressionVariables.directResponse);
    check(`${path}bodyExpression`, r.bodyExpression, expressionVariables.directResponse);
    (r.headers ?? []).forEach((h, i) =>
      check(`${path}headers[${i}].value`, h.value, expressionVariables.directResponse),
    );
  }
}

/** The problems of a Gw object whose spec passed its schema. */
export function gwProblems(kind: GwKind, spec: unknown, bad: Bad): void {
  switch (kind) {
    case 'GwBackend':
      backendProblems(schemaChecked(kind, spec), bad);
      break;
    case 'GwPolicy':
      policyProblems(schemaChecked(kind, spec), bad);
      break;
    case 'GwModel':
      modelProblems(schemaChecked(kind, spec), bad);
      break;
    case 'GwParameters':
      break;
  }
}

/** Exactly one backend kind; MCP targets with a name and one of selector or static. */
function backendProblems(s: GwBackendSpec, bad: Bad): void {
  const set = BACKEND_KINDS.filter((k) => s[k] !== undefined);
  if (set.length !== 1)
    bad(
      'spec',
      `exactly one of ${BACKEND_KINDS.join(', ')} must be set, got ${set.length === 0 ? 'none' : set.join(', ')}`,
    );
  authorizationCelProblems(s, bad);
  shapingCelProblems(s, bad);
  transformationCelProblems('spec.policies.ai', s.policies?.ai, bad);
  (s.ai?.groups ?? []).forEach((g, gi) =>
    (g.providers ?? []).forEach((p, pi) => {
      const at = `spec.ai.groups[${gi}].providers[${pi}].policies`;
      transformationCelProblems(`${at}.ai`, p.policies?.ai, bad);
      unhealthyConditionProblem(`${at}.health`, p.policies?.health, bad);
    }),
  );
  const targets = s.mcp?.targets;
  if (!targets) return;
  if (targets.length < 1 || targets.length > 128)
    bad('spec.mcp.targets', `must have 1 to 128 items, got ${targets.length}`);
  targets.forEach((t, i) => {
    if (!t.name) bad(`spec.mcp.targets[${i}].name`, 'must be set');
    if ((t.static === undefined) === (t.selector === undefined))
      bad(`spec.mcp.targets[${i}]`, 'exactly one of selector or static must be set');
    const port = t.static?.port;
    if (port !== undefined && (port < 1 || port > 65535))
      bad(`spec.mcp.targets[${i}].static.port`, `must be between 1 and 65535, got ${JSON.stringify(port)}`);
  });
}

/** One kind of target list with 1 to 16 entries, strategy only with traffic, and something to apply. */
function policyProblems(s: GwPolicySpec, bad: Bad): void {
  const refs = s.targetRefs !== undefined,
    sels = s.targetSelectors !== undefined;
  if (refs === sels) bad('spec', 'exactly one of targetRefs or targetSelectors must be set');
  const list: readonly { sectionName?: string; port?: number }[] = (refs ? s.targetRefs : s.targetSelectors) ?? [];
  if (list.length < 1 || list.length > 16)
    bad(refs ? 'spec.targetRefs' : 'spec.targetSelectors', `must have 1 to 16 items, got ${list.length}`);
  list.forEach((t, i) => {
    if (t.sectionName !== undefined && t.port !== undefined)
      bad(`spec.${refs ? 'targetRefs' : 'targetSelectors'}[${i}]`, 'at most one of sectionName or port may be set');
  });
  if (s.strategy?.inheritance !== undefined && s.traffic === undefined)
    bad('spec.strategy.inheritance', 'is valid only together with traffic settings');
  if (s.frontend === undefined && s.traffic === undefined && s.backend === undefined)
    bad('spec', 'at least one of frontend, traffic or backend must be set');
  authorizationCelProblems(s, bad);
  shapingCelProblems(s, bad);
  transformationCelProblems('spec.backend.ai', s.backend?.ai, bad);
}

type FieldTransformationLists = {
  transformations?: readonly { expression: string }[];
  finalTransformations?: readonly { expression: string }[];
};

/**
 * AI field transformations compiled with the proxy's environment (`llmRequest`, `request`, `jwt`, `apiKey`): one
 * that does not compile would refuse every request the proxy sends through it, so the object is refused here.
 */
function transformationCelProblems(at: string, lists: FieldTransformationLists | undefined, bad: Bad): void {
  for (const list of ['transformations', 'finalTransformations'] as const)
    (lists?.[list] ?? []).forEach((t, i) => {
      const why = celCompileProblem(t.expression, expressionVariables.aiTransformation);
      if (why) bad(`${at}.${list}[${i}].expression`, why);
    });
}

const unhealthyVars = expressionVariables.unhealthyCondition;

/** `health.unhealthyCondition` compiled as the proxy will (over `response`): one that does not compile is refused here. */
function unhealthyConditionProblem(at: string, h: { unhealthyCondition?: string } | undefined, bad: Bad): void {
  const why = h?.unhealthyCondition === undefined ? undefined : celCompileProblem(h.unhealthyCondition, unhealthyVars);
  if (why) bad(`${at}.unhealthyCondition`, why);
}

function modelProblems(s: GwModelSpec, bad: Bad): void {
  unhealthyConditionProblem('spec.policies.health', s.policies?.health, bad);
  const set = (['provider', 'virtualModel'] as const).filter((k) => s[k] !== undefined);
  if (set.length !== 1) bad('spec', 'exactly one of provider or virtualModel must be set');
  const parents = s.parentRefs;
  if (parents.length < 1 || parents.length > 16)
    bad('spec.parentRefs', `must have 1 to 16 items, got ${parents.length}`);
  // A rule that does not compile makes the model invalid: as a security field, it is then refused (issue 31).
  (s.policies?.authorization?.policy.matchExpressions ?? []).forEach((e, i) => {
    const why = celCompileProblem(e, expressionVariables.modelAuthorization);
    if (why) bad(`spec.policies.authorization.policy.matchExpressions[${i}]`, why);
  });
  transformationCelProblems('spec.policies', s.policies, bad);
}

/** authorizationCelWarnings as `path: message` lines, for status conditions. */
export function authorizationCelWarningLines(s: CelAuthorizations): string[] {
  const out: string[] = [];
  authorizationCelWarnings(s, (path, message) => out.push(`${path}: ${message}`));
  return out;
}
