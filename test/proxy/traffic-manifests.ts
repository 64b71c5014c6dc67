// Manifests for the traffic policy wire tests: one Gateway, a static GwBackend, and per case an HTTPRoute
// with its own path prefix plus a GwPolicy targeting it with the given `traffic` (YAML flow text).
import { gatewayWithStaticBackend } from './translated-ir.js';

export interface TrafficCase {
  name: string;
  traffic: string;
  /** Extra keys of the HTTPRoute rule (YAML flow entries), e.g. `timeouts: {request: 2s}`. */
  rule?: string;
  backend?: string;
}

export function trafficManifests(port: number, cases: TrafficCase[], extra = ''): string {
  const head = gatewayWithStaticBackend(port, 'up');
  const parts = cases.map(
    (c) => `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${c.name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /${c.name}}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: ${c.backend ?? 'up'}}]${c.rule ? `, ${c.rule}` : ''}}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${c.name}, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ${c.name}}]
  traffic: ${c.traffic}
`,
  );
  return [head, ...parts, ...(extra ? [extra] : [])].join('---\n');
}

/**
 * GwBackend default/`name`: one MCP target `t` at 127.0.0.1:`port` (streamable HTTP at /mcp), with the
 * target's own `policies` and the backend's `spec.policies` when given (YAML flow text).
 */
export function mcpBackendManifest(
  name: string,
  port: number,
  policies: { target?: string; backend?: string } = {},
): string {
  const target = policies.target ? `, policies: ${policies.target}` : '';
  return `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:${policies.backend ? `\n  policies: ${policies.backend}` : ''}
  mcp:
    targets:
    - name: t
      static: {host: 127.0.0.1, port: ${port}, path: /mcp${target}}
`;
}

/** GwPolicy default/`name` setting `frontend` (YAML flow text) on every listener of Gateway web. */
export function frontendPolicy(frontend: string, name = 'fe'): string {
  return `
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend: ${frontend}
`;
}
