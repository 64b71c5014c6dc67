// `backend.http.version: HTTP2` on an edge to an HTTP backend, through the real translator and runtime:
// the backend sees HTTP/2 (h2c prior knowledge on http, ALPN h2 on https), and response trailers reach the
// client. Without the field the same https backend sees HTTP/1.1, and an h2c-only backend cannot be reached.
// Real node:http2 servers on loopback; certificates are made when the test runs.
import http2 from 'node:http2';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { issueLeaf, testCa } from '../support/test-certs.js';
import { GATEWAY_WEB, routeBackendPolicy, translatedIr } from './translated-ir.js';
import { aiRoute } from './llm/llm-harness.js';

interface Seen {
  version: string;
  path: string;
}

/** Answers `200 <httpVersion>` with a trailer, recording what it saw. */
function handler(seen: Seen[]) {
  return (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse): void => {
    seen.push({ version: req.httpVersion, path: req.url });
    res.writeHead(200, { 'content-type': 'text/plain', trailer: 'x-check' });
    res.addTrailers({ 'x-check': `done-${req.httpVersion}` });
    res.end(`version ${req.httpVersion}`);
  };
}

function manifests(h2cPort: number, tlsPort: number, ca: string): string {
  const backend = (name: string, port: number) => `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec: {static: {host: 127.0.0.1, port: ${port}}}
`;
  const route = (name: string, to: string, backend?: string): string =>
    `${aiRoute(name, `/${name}`, to)}${backend ? routeBackendPolicy(name, backend) : ''}`;
  const tls = `tls: {caCertificateRefs: [{name: test-ca}], sni: backend.test}`;
  return [
    GATEWAY_WEB,
    `apiVersion: v1
kind: ConfigMap
metadata: {name: test-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(ca)}}
`,
    backend('h2c', h2cPort),
    backend('secure', tlsPort),
    route('h2c', 'h2c', '{http: {version: HTTP2}}'),
    route('h2c-default', 'h2c'),
    route('tls-h2', 'secure', `{${tls}, http: {version: HTTP2}}`),
    route('tls-h1', 'secure', `{${tls}, http: {version: HTTP1}}`),
    route('tls-default', 'secure', `{${tls}}`),
  ].join('---\n');
}

/** GET through the proxy as HTTP/1.1 asking for trailers: status, body and trailers. */
function get(port: number, path: string): Promise<{ status: number; body: string; trailers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { te: 'trailers' }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, trailers: res.trailers as Record<string, string> }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('backend.http.version', () => {
  const h2cSeen: Seen[] = [];
  const tlsSeen: Seen[] = [];
  let h2c: http2.Http2Server;
  let secure: http2.Http2SecureServer;
  let runtime: ProxyRuntime;
  let port: number;

  beforeAll(async () => {
    const ca = await testCa();
    const leaf = issueLeaf(ca, ['backend.test'], 'server');
    h2c = http2.createServer(handler(h2cSeen));
    secure = http2.createSecureServer({ cert: leaf.cert, key: leaf.key, allowHTTP1: true }, handler(tlsSeen));
    await Promise.all([
      new Promise<void>((r) => h2c.listen(0, '127.0.0.1', r)),
      new Promise<void>((r) => secure.listen(0, '127.0.0.1', r)),
    ]);
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
    await runtime.apply(
      translatedIr(manifests((h2c.address() as AddressInfo).port, (secure.address() as AddressInfo).port, ca.caCert)),
    );
    port = Object.values(runtime.boundPorts())[0] as number;
  });
  afterAll(async () => {
    await runtime.close();
    h2c.close();
    secure.close();
  });

  it('HTTP2 on an http backend speaks h2c (prior knowledge) and passes the trailers on', async () => {
    const res = await get(port, '/h2c/x');
    expect(res).toMatchObject({ status: 200, body: 'version 2.0', trailers: { 'x-check': 'done-2.0' } });
    expect(h2cSeen.at(-1)).toEqual({ version: '2.0', path: '/h2c/x' });
  });

  it('without the field an h2c-only backend is not reached over HTTP/2', async () => {
    const before = h2cSeen.length;
    const res = await get(port, '/h2c-default/x');
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(h2cSeen.length).toBe(before);
  });

  it('HTTP2 on an https backend negotiates h2 by ALPN; HTTP1 and no field stay on HTTP/1.1', async () => {
    expect(await get(port, '/tls-h2/x')).toMatchObject({ status: 200, body: 'version 2.0' });
    expect(await get(port, '/tls-h1/x')).toMatchObject({ status: 200, body: 'version 1.1' });
    expect(await get(port, '/tls-default/x')).toMatchObject({ status: 200, body: 'version 1.1' });
    expect(tlsSeen.map((s) => s.version)).toEqual(['2.0', '1.1', '1.1']);
  });
});
