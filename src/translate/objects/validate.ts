// The checks translation itself relies on. Schema validation of the Gw kinds comes from src/api
// (validateManifest); these add the structural minimum for every kind so a malformed object is
// reported and skipped instead of reaching the translator.
import { API_VERSION } from '../../api/kinds.js';
import { validateManifest } from '../../api/validate.js';
import { celCompileProblem, connectionVariables, type CelVariable } from '../../cel/data-plane.js';
import type { Problem } from '../../problem.js';
import { arr, rec, recs, str, type Rec } from './read.js';
import { backendTlsPolicyProblems } from '../backends/backend-tls-policy-checks.js';
import { routeFilterProblems } from '../routes/route-filters.js';
import { routeTimeoutProblems } from '../routes/route-timeouts.js';
import { displayName, nameKey, type Kind, type KubeObject } from './types.js';

const BACKEND_KINDS = ['ai', 'static', 'dynamicForwardProxy', 'mcp', 'aws', 'a2a'] as const;

/** The variables the proxy's CEL authorization binds (src/proxy/auth/authorization.ts compiles with the same list). */
const AUTHORIZATION_VARIABLES: readonly CelVariable[] = ['jwt', 'request', 'mcp', 'apiKey'];

/**
 * `traffic.authorization` and `mcp.authorization` rules compiled with the data plane's CEL environment: one the
 * proxy would reject would NACK the whole snapshot, so the object is refused here (Accepted=False) and left out.
 */
export function authorizationCelProblems(
  s: Record<string, unknown>,
  bad: (path: string, message: string) => void,
): void {
  const places: [string, unknown, readonly CelVariable[]][] = [
    ['traffic.authorization', rec(s.traffic)?.authorization, AUTHORIZATION_VARIABLES],
    ['backend.mcp.authorization', rec(rec(s.backend)?.mcp)?.authorization, AUTHORIZATION_VARIABLES],
    ['policies.mcp.authorization', rec(rec(s.policies)?.mcp)?.authorization, AUTHORIZATION_VARIABLES],
    ['frontend.networkAuthorization', rec(s.frontend)?.networkAuthorization, connectionVariables],
  ];
  for (const [path, authz, variables] of places) {
    arr(rec(rec(authz)?.policy)?.matchExpressions).forEach((e, i) => {
      const why = typeof e === 'string' ? celCompileProblem(e, variables) : 'must be a string';
      if (why) bad(`spec.${path}.policy.matchExpressions[${i}]`, why);
    });
  }
}

export function validateObject(kind: Kind, obj: KubeObject, source: string): Problem[] {
  const object = displayName(kind, nameKey(obj.metadata.namespace, obj.metadata.name));
  const out: Problem[] = [];
  const bad = (path: string, message: string) => out.push({ source, object, path, message });
  // The Gw kinds get the API server's admission checks first (schema, bounds, CEL union rules).
  if (kind.startsWith('Gw')) {
    const schema = validateManifest(obj, source);
    if (schema.length) return schema;
    // validateManifest checks the schema only under gw.dev; a valid Gw object is read as the schema's type (gw-objects.ts).
    if (obj.apiVersion !== API_VERSION)
      bad('apiVersion', `must be ${API_VERSION}, got ${JSON.stringify(obj.apiVersion)}`);
    if (out.length) return out;
  }
  if (!obj.metadata.name) bad('metadata.name', 'must be set');
  const spec = rec(obj.spec);
  const needsSpec = !['Secret', 'ConfigMap', 'Namespace', 'EndpointSlice'].includes(kind);
  if (needsSpec && !spec) {
    bad('spec', 'must be an object');
    return out;
  }
  const s = spec ?? {};
  switch (kind) {
    case 'Gateway':
      gatewayProblems(s, bad);
      break;
    case 'HTTPRoute':
    case 'GRPCRoute':
      if (s.parentRefs !== undefined && !Array.isArray(s.parentRefs)) bad('spec.parentRefs', 'must be a list');
      if (s.rules !== undefined && !Array.isArray(s.rules)) bad('spec.rules', 'must be a list');
      if (kind === 'HTTPRoute') out.push(...routeTimeoutProblems(s, source, object));
      out.push(...routeFilterProblems(kind, s, source, object));
      break;
    case 'GwBackend':
      backendProblems(s, bad);
      break;
    case 'GwPolicy':
      policyProblems(s, bad);
      break;
    case 'BackendTLSPolicy':
      out.push(...backendTlsPolicyProblems(s, source, object));
      break;
    case 'GwModel': {
      const set = ['provider', 'virtualModel'].filter((k) => s[k] !== undefined);
      if (set.length !== 1) bad('spec', 'exactly one of provider or virtualModel must be set');
      const parents = arr(s.parentRefs);
      if (parents.length < 1 || parents.length > 16)
        bad('spec.parentRefs', `must have 1 to 16 items, got ${parents.length}`);
      break;
    }
    default:
      break;
  }
  return out;
}

type Bad = (path: string, message: string) => void;

function gatewayProblems(s: Rec, bad: Bad): void {
  if (!str(s.gatewayClassName)) bad('spec.gatewayClassName', 'must be set');
  recs(s.listeners).forEach((l, i) => {
    if (!str(l.name)) bad(`spec.listeners[${i}].name`, 'must be set');
    const port = l.port;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      bad(`spec.listeners[${i}].port`, `must be between 1 and 65535, got ${JSON.stringify(port)}`);
    }
  });
}

/** Exactly one backend kind; MCP targets with a name and one of selector or static. */
function backendProblems(s: Rec, bad: Bad): void {
  const set = BACKEND_KINDS.filter((k) => s[k] !== undefined);
  if (set.length !== 1)
    bad(
      'spec',
      `exactly one of ${BACKEND_KINDS.join(', ')} must be set, got ${set.length === 0 ? 'none' : set.join(', ')}`,
    );
  authorizationCelProblems(s, bad);
  const mcp = rec(s.mcp);
  if (mcp) {
    const targets = arr(mcp.targets);
    if (targets.length < 1 || targets.length > 128)
      bad('spec.mcp.targets', `must have 1 to 128 items, got ${targets.length}`);
    recs(targets).forEach((t, i) => {
      if (!str(t.name)) bad(`spec.mcp.targets[${i}].name`, 'must be set');
      if ((t.static === undefined) === (t.selector === undefined))
        bad(`spec.mcp.targets[${i}]`, 'exactly one of selector or static must be set');
      const st = rec(t.static);
      const port = st?.port;
      if (st && (typeof port !== 'number' || port < 1 || port > 65535))
        bad(`spec.mcp.targets[${i}].static.port`, `must be between 1 and 65535, got ${JSON.stringify(port)}`);
    });
  }
}

/** One kind of target list with 1 to 16 entries, strategy only with traffic, and something to apply. */
function policyProblems(s: Rec, bad: Bad): void {
  const refs = s.targetRefs !== undefined,
    sels = s.targetSelectors !== undefined;
  if (refs === sels) bad('spec', 'exactly one of targetRefs or targetSelectors must be set');
  const list = refs ? arr(s.targetRefs) : arr(s.targetSelectors);
  if (list.length < 1 || list.length > 16)
    bad(refs ? 'spec.targetRefs' : 'spec.targetSelectors', `must have 1 to 16 items, got ${list.length}`);
  recs(list).forEach((t, i) => {
    if (t.sectionName !== undefined && t.port !== undefined)
      bad(`spec.${refs ? 'targetRefs' : 'targetSelectors'}[${i}]`, 'at most one of sectionName or port may be set');
  });
  const strategy = rec(s.strategy);
  if (strategy?.inheritance !== undefined && s.traffic === undefined)
    bad('spec.strategy.inheritance', 'is valid only together with traffic settings');
  if (s.frontend === undefined && s.traffic === undefined && s.backend === undefined)
    bad('spec', 'at least one of frontend, traffic or backend must be set');
  authorizationCelProblems(s, bad);
}
