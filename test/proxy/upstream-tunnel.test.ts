// GwPolicy `backend.tunnel` and `backend.tcp` on HTTP backends, translated from manifests and served by a real
// proxy runtime, through a real forward proxy (test/forwardproxy: elazarl/goproxy with a basic-auth check).
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { issueLeaf, testCa } from '../support/test-certs.js';
import { ForwardProxy } from './forward-proxy.js';
import { rawRequest } from './http-forward-harness.js';
import { aiRoute, secret } from './llm/llm-harness.js';
import { GATEWAY_WEB, routeBackendPolicy, translatedIr } from './translated-ir.js';

const PASSWORD = 'tunnel-s3cret-Pa55';

function backend(name: string, port: number): string {
  return `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec: {static: {host: 127.0.0.1, port: ${port}}}
`;
}

const route = (name: string, to: string, policy: string): string =>
  `${aiRoute(name, `/${name}`, to)}${routeBackendPolicy(name, policy)}`;

function manifests(p: { proxy: string; plain: number; secure: number; hole: string; ca: string }): string {
  const tls = 'tls: {caCertificateRefs: [{name: test-ca}], sni: backend.test}';
  const via = (mode: string, secretName = 'proxy-auth') =>
    `tunnel: {url: "http://${p.proxy}", mode: ${mode}, secretRef: {name: ${secretName}}}`;
  return [
    GATEWAY_WEB,
    `apiVersion: v1
kind: ConfigMap
metadata: {name: test-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(p.ca)}}
`,
    secret('proxy-auth', { username: 'gw', password: PASSWORD }),
    secret('wrong-auth', { username: 'gw', password: `not-${PASSWORD}` }),
    backend('plain', p.plain),
    backend('secure', p.secure),
    backend('hole', Number(p.hole.split(':')[1])),
    route('connect-tls', 'secure', `{${tls}, ${via('Connect')}}`),
    route('auto-tls', 'secure', `{${tls}, ${via('Auto')}}`),
    route('auto-plain', 'plain', `{${via('Auto')}}`),
    route('connect-plain', 'plain', `{${via('Connect')}}`),
    route('wrong-connect', 'secure', `{${tls}, ${via('Connect', 'wrong-auth')}}`),
    route('wrong-auto', 'plain', `{${via('Auto', 'wrong-auth')}}`),
    route('slow-connect', 'hole', '{tcp: {connectTimeout: 300ms}}'),
    route('no-secret', 'plain', `{${via('Auto', 'absent')}}`),
  ].join('---\n');
}

describe('backend.tunnel and backend.tcp', () => {
  let proxy: ForwardProxy;
  let hole: ForwardProxy;
  let plain: Server;
  let secure: Server;
  let runtime: ProxyRuntime;
  let base: string;
  const filling: Socket[] = [];
  const seen: string[] = [];
  const logLines: string[] = [];

  beforeAll(async () => {
    const ca = await testCa();
    const leaf = issueLeaf(ca, ['backend.test'], 'server');
    const answer =
      (name: string) =>
      (
        req: { url?: string; headers: Record<string, unknown> },
        res: {
          end(body: string): void;
        },
      ) => {
        seen.push(`${name} ${req.url} ${req.headers['proxy-authorization'] ? 'with' : 'without'} proxy credential`);
        res.end(`${name} ${req.url}`);
      };
    plain = createHttpServer(answer('plain'));
    secure = createHttpsServer({ cert: leaf.cert, key: leaf.key }, answer('secure'));
    await Promise.all([
      new Promise<void>((r) => plain.listen(0, '127.0.0.1', r)),
      new Promise<void>((r) => secure.listen(0, '127.0.0.1', r)),
    ]);
    [proxy, hole] = await Promise.all([
      ForwardProxy.start({ user: 'gw', password: PASSWORD }),
      ForwardProxy.start({ blackhole: true }),
    ]);
    // Fill the blackhole's queue: from here its SYNs are dropped, so a connect hangs (on loopback).
    const [host, port] = hole.address.split(':');
    for (let i = 0; i < 4; i++) filling.push(connect(Number(port), host).on('error', () => undefined));
    const log = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
    runtime = new ProxyRuntime({ log });
    await runtime.apply(
      translatedIr(
        manifests({
          proxy: proxy.address,
          plain: (plain.address() as AddressInfo).port,
          secure: (secure.address() as AddressInfo).port,
          hole: hole.address,
          ca: ca.caCert,
        }),
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });
  afterAll(async () => {
    for (const s of filling) s.destroy();
    await runtime?.close();
    await Promise.all([proxy?.stop(), hole?.stop()]);
    plain?.close();
    secure?.close();
  });

  const securePort = (): number => (secure.address() as AddressInfo).port;
  const plainPort = (): number => (plain.address() as AddressInfo).port;

  it('Connect mode reaches an HTTPS backend through a CONNECT tunnel, TLS inside it', async () => {
    const res = await rawRequest(`${base}/connect-tls/a`);
    expect(res).toMatchObject({ status: 200, body: 'secure /connect-tls/a' });
    expect(proxy.handled).toContainEqual({ method: 'CONNECT', target: `127.0.0.1:${securePort()}` });
  });

  it('Auto mode tunnels a TLS backend with CONNECT too', async () => {
    const before = proxy.handled.length;
    expect(await rawRequest(`${base}/auto-tls/b`)).toMatchObject({ status: 200, body: 'secure /auto-tls/b' });
    // A kept-alive tunnel may serve it; the first request on this edge opened one.
    expect(proxy.handled.slice(before).every((h) => h.method === 'CONNECT')).toBe(true);
  });

  it('Auto mode sends a plaintext HTTP backend absolute-form requests, the credential only to the proxy', async () => {
    const res = await rawRequest(`${base}/auto-plain/c?q=1`);
    expect(res).toMatchObject({ status: 200, body: 'plain /auto-plain/c?q=1' });
    expect(proxy.handled).toContainEqual({
      method: 'GET',
      target: `http://127.0.0.1:${plainPort()}/auto-plain/c?q=1`,
    });
    expect(seen).toContain('plain /auto-plain/c?q=1 without proxy credential');
  });

  it('Connect mode tunnels a plaintext HTTP backend', async () => {
    expect(await rawRequest(`${base}/connect-plain/d`)).toMatchObject({ status: 200, body: 'plain /connect-plain/d' });
    expect(proxy.handled).toContainEqual({ method: 'CONNECT', target: `127.0.0.1:${plainPort()}` });
    expect(proxy.handled.some((h) => h.target.includes('/connect-plain/'))).toBe(false);
  });

  it('a proxy refusing the credential gives 502 naming the status, never the secret', async () => {
    const before = seen.length;
    for (const path of ['/wrong-connect/e', '/wrong-auto/f']) {
      const res = await rawRequest(`${base}${path}`);
      expect(res.status).toBe(502);
      expect(res.body).toContain('refused the tunnel with status 407');
      expect(res.body).not.toContain(PASSWORD);
      expect(JSON.stringify(res.headers)).not.toContain('Basic');
    }
    expect(proxy.handled.filter((h) => h.refused).length).toBeGreaterThanOrEqual(2);
    expect(seen.length).toBe(before);
    const basic = Buffer.from(`gw:not-${PASSWORD}`).toString('base64');
    expect(logLines.join('\n')).not.toContain(basic);
    expect(logLines.join('\n')).not.toContain(PASSWORD);
  });

  it('a tunnel whose Secret is missing leaves the edge out: nothing goes around the proxy', async () => {
    const before = { seen: seen.length, handled: proxy.handled.length };
    const res = await rawRequest(`${base}/no-secret/h`);
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(seen.length).toBe(before.seen);
    expect(proxy.handled.length).toBe(before.handled);
  });

  it('tcp.connectTimeout bounds the connect to a backend that never answers the SYN', async () => {
    const started = Date.now();
    const res = await rawRequest(`${base}/slow-connect/g`);
    const took = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.body).toContain('unreachable');
    // The proxy's default connect timeout is 10 s.
    expect(took).toBeLessThan(3000);
    expect(took).toBeGreaterThanOrEqual(250);
  });
});
