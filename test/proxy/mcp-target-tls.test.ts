// MCP targets over TLS: `backend.tls` on the route → MCP backend edge and a target's own `policies.tls` dial
// the target over https with the configured CA, SNI, client certificate and insecureSkipVerify, through the
// same upstream TLS pool static backends use. The target is a real MCP server on https://127.0.0.1 that
// requires a client certificate; every certificate is made when the test runs (test/support/test-certs.ts).
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { issueLeaf, testCa } from '../support/test-certs.js';
import { connectClient, textOf } from './harness.js';
import { GATEWAY_WEB, routeBackendPolicy, translatedIr } from './translated-ir.js';
import { aiRoute } from './llm/llm-harness.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function manifests(port: number, pem: { ca: string; otherCa: string; cert: string; key: string }): string {
  const mtls = 'mtlsCertificateRef: [{name: client}]';
  const tls = (extra: string) => `{caCertificateRefs: [{name: test-ca}], sni: mcp.test, ${extra}}`;
  const backend = (name: string, targetTls = '') => `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    targets: [{name: t, static: {host: 127.0.0.1, port: ${port}, path: /mcp${targetTls ? `, policies: {tls: ${targetTls}}` : ''}}}]
`;
  const route = (name: string, to: string, backendTls?: string): string =>
    `${aiRoute(name, `/${name}`, to)}${backendTls ? routeBackendPolicy(name, `{tls: ${backendTls}}`) : ''}`;
  return [
    GATEWAY_WEB,
    `apiVersion: v1
kind: ConfigMap
metadata: {name: test-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(pem.ca)}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(pem.otherCa)}}
---
apiVersion: v1
kind: Secret
metadata: {name: client, namespace: default}
type: kubernetes.io/tls
data: {tls.crt: ${b64(pem.cert)}, tls.key: ${b64(pem.key)}}
`,
    backend('mcp'),
    route('verified', 'mcp', tls(mtls)),
    route('nocert', 'mcp', tls('')),
    route('wrongca', 'mcp', `{caCertificateRefs: [{name: other-ca}], sni: mcp.test, ${mtls}}`),
    route('wrongsni', 'mcp', `{caCertificateRefs: [{name: test-ca}], sni: other.test, ${mtls}}`),
    route('skip', 'mcp', `{insecureSkipVerify: All, ${mtls}}`),
    route('plain', 'mcp'),
    backend('per-target', tls(mtls)),
    route('target', 'per-target'),
  ].join('---\n');
}

describe('MCP targets over TLS', () => {
  let target: HttpFixture;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    const [ca, otherCa] = await Promise.all([testCa(), testCa('other CA')]);
    // The server certificate names only mcp.test: dialled at 127.0.0.1, it verifies only with that SNI.
    const server = issueLeaf(ca, ['mcp.test'], 'server');
    const client = issueLeaf(ca, ['gw-proxy'], 'client');
    target = await startHttpFixture({
      id: 'tls',
      tls: { cert: server.cert, key: server.key, ca: ca.caCert, requestCert: true, rejectUnauthorized: true },
    });
    const pem = { ca: ca.caCert, otherCa: otherCa.caCert, cert: client.cert, key: client.key };
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
    await runtime.apply(translatedIr(manifests(Number(new URL(target.url).port), pem)));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await target?.close();
  });

  async function callEcho(path: string): Promise<string> {
    const { client } = await connectClient(`${base}${path}`);
    try {
      return textOf(await client.callTool({ name: 'echo', arguments: { text: 'over tls' } }));
    } finally {
      await client.close();
    }
  }

  it('dials the target with the CA, SNI and client certificate of the edge backend.tls', async () => {
    const before = target.handshakes.length;
    expect(await callEcho('/verified')).toContain('over tls');
    const seen = target.handshakes.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    for (const h of seen) expect(h).toEqual({ servername: 'mcp.test', clientCert: true });
  });

  it("uses a target's own policies.tls", async () => {
    expect(await callEcho('/target')).toContain('over tls');
  });

  it('skips verification only when insecureSkipVerify says so (the client certificate is still sent)', async () => {
    expect(await callEcho('/skip')).toContain('over tls');
  });

  it('names why the certificate was rejected without quoting it', async () => {
    const err = await connectClient(`${base}/wrongsni`).then(
      () => '',
      (e: unknown) => String(e),
    );
    expect(err).toContain('TLS to target t failed: the backend certificate does not match the host name');
    const ca = await connectClient(`${base}/wrongca`).then(
      () => '',
      (e: unknown) => String(e),
    );
    expect(ca).toContain('TLS to target t failed: the backend certificate is not signed by a trusted CA');
  });

  it('fails initialize, never falling back, without a client certificate, with a wrong CA or SNI, or without TLS', async () => {
    for (const path of ['/nocert', '/wrongca', '/wrongsni', '/plain']) {
      const err = await connectClient(`${base}${path}`).then(
        () => undefined,
        (e: unknown) => String(e),
      );
      // The dial itself fails (handshake refused or certificate rejected), not a refusal of the route.
      expect(err, path).toMatch(/target failed to initialize/);
      expect(err, path).not.toContain('mcp.test');
    }
  });
});
