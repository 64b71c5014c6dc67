// The checks translation itself relies on. The Gw kinds get their src/api schema (validateManifest), then the
// checks of validate-gw.ts on the typed spec; the Gateway API kinds get the published CRD schema (validateManifest
// again), then the checks below; the other kinds get the structural minimum here, read as written, so a malformed
// object is reported and skipped instead of reaching the translator.
import { GATEWAY_API_GROUP, GATEWAY_API_KINDS } from '../../api/gateway-api.js';
import { API_VERSION } from '../../api/kinds.js';
import { validateManifest } from '../../api/validate.js';
import type { Problem } from '../../problem.js';
import { rec, recs, str, type Rec } from './read.js';
import { backendTlsPolicyProblems } from '../backends/backend-tls-policy-checks.js';
import { routeFilterProblems } from '../routes/route-filters.js';
import { routeTimeoutProblems } from '../routes/route-timeouts.js';
import { displayName, nameKey, type Kind, type KubeObject } from './types.js';
import { gwProblems, type Bad } from './validate-gw.js';

export { authorizationCelProblems } from './validate-gw.js';

export function validateObject(kind: Kind, obj: KubeObject, source: string): Problem[] {
  const object = displayName(kind, nameKey(obj.metadata.namespace, obj.metadata.name));
  const out: Problem[] = [];
  const bad = (path: string, message: string) => out.push({ source, object, path, message });
  // The Gw kinds get the API server's admission checks first (schema, bounds, CEL union rules).
  if (kind === 'GwBackend' || kind === 'GwPolicy' || kind === 'GwModel' || kind === 'GwParameters') {
    const schema = validateManifest(obj, source);
    if (schema.length) return schema;
    // validateManifest checks the schema only under gw.dev; a valid Gw object is read as the schema's type (gw-objects.ts).
    if (obj.apiVersion !== API_VERSION)
      bad('apiVersion', `must be ${API_VERSION}, got ${JSON.stringify(obj.apiVersion)}`);
    else gwProblems(kind, obj.spec, bad);
    return out;
  }
  // Objects that never met an API server (local files) are admitted here as it would admit them; one of another
  // group (an XListenerSet) or without apiVersion (tests' fixtures) gets only the checks below.
  if (GATEWAY_API_KINDS.includes(kind) && obj.apiVersion?.split('/')[0] === GATEWAY_API_GROUP) {
    const schema = validateManifest(obj, source);
    if (schema.length) return schema;
  }
  // The checks below read the spec as written.
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
    case 'BackendTLSPolicy':
      out.push(...backendTlsPolicyProblems(s, source, object));
      break;
    default:
      break;
  }
  return out;
}

function gatewayProblems(s: Rec, bad: Bad): void {
  if (!str(s.gatewayClassName)) bad('spec.gatewayClassName', 'must be set');
  recs(s.listeners).forEach((l, i) => {
    if (!str(l.name)) bad(`spec.listeners[${i}].name`, 'must be set');
    const port = l.port;
    if (port === undefined) bad(`spec.listeners[${i}].port`, 'is required');
    else if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      bad(`spec.listeners[${i}].port`, `must be between 1 and 65535, got ${JSON.stringify(port)}`);
    }
  });
}
