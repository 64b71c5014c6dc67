// Gateway API BackendTLSPolicy end to end: HTTPRoutes to Services with a policy, translated to IR, served
// by a real runtime and forwarded to a real node:https upstream presenting a.example.test from
// tls-testdata/. Cluster DNS cannot run here, so the one substitution is the Service's DNS name
// (`<svc>.default.svc.cluster.local`) → 127.0.0.1 in the translated snapshot; everything else is real.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { upstreamTlsManifests } from './upstream-tls-manifests.js';

const pem = (f: string): string => readFileSync(join(import.meta.dirname, 'tls-testdata', f), 'utf8');

interface Case {
  name: string;
  /** `spec.validation` of the Service's BackendTLSPolicy (YAML flow text); no policy when absent. */
  validation?: string;
}

const CASES: Case[] = [
  {
    name: 'verified',
    validation: '{caCertificateRefs: [{group: "", kind: ConfigMap, name: test-ca}], hostname: a.example.test}',
  },
  {
    name: 'mismatch',
    validation: '{caCertificateRefs: [{group: "", kind: ConfigMap, name: test-ca}], hostname: b.example.test}',
  },
  {
    name: 'wrong-ca',
    validation: '{caCertificateRefs: [{group: "", kind: ConfigMap, name: other-ca}], hostname: a.example.test}',
  },
  { name: 'system', validation: '{wellKnownCACertificates: System, hostname: a.example.test}' },
  {
    name: 'san',
    validation:
      '{caCertificateRefs: [{group: "", kind: ConfigMap, name: test-ca}], hostname: other.example.test, subjectAltNames: [{type: Hostname, hostname: a.example.test}]}',
  },
  {
    name: 'missing-ca',
    validation: '{caCertificateRefs: [{group: "", kind: ConfigMap, name: nowhere}], hostname: a.example.test}',
  },
  { name: 'plain' },
];

/** The shared backend-TLS fixture (Gateway, `test-ca` / `other-ca` ConfigMaps) plus a Service, route and policy per case. */
function manifests(port: number): string {
  const parts = CASES.map(
    (c) => `apiVersion: v1
kind: Service
metadata: {name: ${c.name}, namespace: default}
spec: {ports: [{name: https, port: ${port}}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${c.name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /${c.name}}}], backendRefs: [{name: ${c.name}, port: ${port}}]}
${
  c.validation
    ? `---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: ${c.name}, namespace: default}
spec:
  targetRefs: [{group: "", kind: Service, name: ${c.name}}]
  validation: ${c.validation}
`
    : ''
}`,
  );
  return [upstreamTlsManifests(port, port, []), ...parts].join('---\n');
}

describe('TLS from the proxy to Service backends (BackendTLSPolicy)', () => {
  let upstream: Server;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    upstream = createServer({ cert: pem('a.crt'), key: pem('a.key') }, (req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ sni: (req.socket as TLSSocket).servername }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    const ir = translatedIr(manifests(port));
    for (const r of ir.resources)
      if (r.backend?.static?.host.endsWith('.default.svc.cluster.local')) r.backend.static.host = '127.0.0.1';
    runtime = new ProxyRuntime({ log });
    await runtime.apply(ir);
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    if (upstream)
      await new Promise((r) => {
        upstream.closeAllConnections();
        upstream.close(r);
      });
  });

  async function status(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await rawRequest(`${base}${path}`);
    return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown> };
  }

  it('dials HTTPS, trusts the ConfigMap CA and sends the policy hostname as SNI', async () => {
    expect(await status('/verified')).toEqual({ status: 200, body: { sni: 'a.example.test' } });
  });

  it('refuses a backend whose certificate does not match the policy hostname', async () => {
    const r = await status('/mismatch');
    expect(r.status).toBe(503);
    expect(r.body.error_description).toContain('does not match the host name');
  });

  it('refuses a backend not signed by the referenced CA', async () => {
    const r = await status('/wrong-ca');
    expect(r.status).toBe(503);
    expect(r.body.error_description).toContain('not signed by a trusted CA');
  });

  it('uses the system roots for wellKnownCACertificates System, which do not trust a private CA', async () => {
    const r = await status('/system');
    expect(r.status).toBe(503);
    expect(r.body.error_description).toContain('not signed by a trusted CA');
  });

  it('authenticates by subjectAltNames instead of the hostname, which is still the SNI', async () => {
    expect(await status('/san')).toEqual({ status: 200, body: { sni: 'other.example.test' } });
  });

  it('leaves out an edge whose CA ConfigMap is missing rather than sending plaintext', async () => {
    expect(await status('/missing-ca')).toMatchObject({ status: 500, body: { error: 'no_backend' } });
  });

  it('sends plain HTTP to a Service without a policy, which the TLS backend refuses', async () => {
    expect((await rawRequest(`${base}/plain`)).status).toBe(502);
  });
});
