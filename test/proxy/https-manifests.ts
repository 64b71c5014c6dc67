// Manifests for tests of HTTPS listeners through the translator: Gateway default/web with one HTTPS
// listener for a.example.test (ECDSA test certificate), an HTTPRoute to a static backend, and a GwPolicy
// with the given `frontend` (YAML flow text).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gatewayWithStaticBackend } from './translated-ir.js';

const certDir = path.join(import.meta.dirname, 'tls-testdata');
const b64 = (f: string) => readFileSync(path.join(certDir, f)).toString('base64');

/** Gateway default/web with one HTTPS listener (ECDSA certificate for a.example.test), a route, and the policy. */
export function httpsManifests(upstreamPort: number, frontend: string): string {
  return `${gatewayWithStaticBackend(upstreamPort, 'up').replace(
    '[{name: http, port: 8080, protocol: HTTP}]',
    `[{name: https, port: 8443, protocol: HTTPS, hostname: a.example.test, tls: {certificateRefs: [{name: a-cert}]}}]`,
  )}---
apiVersion: v1
kind: Secret
metadata: {name: a-cert, namespace: default}
type: kubernetes.io/tls
data: {tls.crt: "${b64('a.crt')}", tls.key: "${b64('a.key')}"}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: app, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules: [{backendRefs: [{group: gw.dev, kind: GwBackend, name: up}]}]
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: tls, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend: ${frontend}
`;
}
