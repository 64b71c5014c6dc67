// Manifests for the backend TLS wire tests: GwBackend `up` (TLS upstream) and `mtls` (mTLS upstream),
// the CA ConfigMap/Secret and client Secret from tls-testdata/, and per case an HTTPRoute with its own
// path prefix plus a GwPolicy targeting it with the given `backend.tls` (YAML flow text).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayWithStaticBackend } from './translated-ir.js';

export interface UpstreamTlsCase {
  name: string;
  /** `backend.tls` of the case's policy; no policy when absent. */
  tls?: string;
  backend?: 'up' | 'mtls';
}

const file = (f: string): string => readFileSync(join(import.meta.dirname, 'tls-testdata', f), 'utf8');
const b64 = (f: string): string => Buffer.from(file(f)).toString('base64');

export function upstreamTlsManifests(tlsPort: number, mtlsPort: number, cases: UpstreamTlsCase[]): string {
  const shared = `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: mtls, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${mtlsPort}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: test-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(file('ca.crt'))}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(file('b.crt'))}}
---
apiVersion: v1
kind: Secret
metadata: {name: test-ca, namespace: default}
type: Opaque
data: {ca.crt: ${b64('ca.crt')}}
---
apiVersion: v1
kind: Secret
metadata: {name: client, namespace: default}
type: kubernetes.io/tls
data: {tls.crt: ${b64('client.crt')}, tls.key: ${b64('client.key')}}
`;
  const parts = cases.map(
    (c) => `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${c.name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /${c.name}}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: ${c.backend ?? 'up'}}]}
${
  c.tls
    ? `---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${c.name}, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ${c.name}}]
  backend: {tls: ${c.tls}}
`
    : ''
}`,
  );
  return [gatewayWithStaticBackend(tlsPort, 'up'), shared, ...parts].join('---\n');
}
