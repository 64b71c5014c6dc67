// The one upstream dialer on every upstream kind, through a real proxy runtime translated from manifests:
// a per-MCP-target and a per-AI-provider tunnel through a real forward proxy (test/forwardproxy, goproxy,
// which records each CONNECT and absolute-form request), a provider's connect timeout against a listener
// whose full backlog drops SYNs, and backend.tls alpnProtocols / keyExchangeGroups against TLS servers that
// record the protocol they selected or accept only one group. HTTP/2 edges (h2c and h2 by ALPN) dial through
// the same dialer: their tunnel and connect timeout apply.
import { createServer as createHttpsServer, type Server } from 'node:https';
import {
  createServer as createH2cServer,
  createSecureServer,
  type Http2SecureServer,
  type Http2Server,
} from 'node:http2';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { issueLeaf, testCa } from '../support/test-certs.js';
import { ForwardProxy } from './forward-proxy.js';
import { connectClient, textOf } from './harness.js';
import { rawRequest } from './http-forward-harness.js';
import { startFakeVendor, type FakeVendor } from './llm/fake-vendors.js';
import { aiBackend, aiRoute, chat, secret } from './llm/llm-harness.js';
import { GATEWAY_WEB, routeBackendPolicy, translatedIr } from './translated-ir.js';

const PASSWORD = 'dialer-s3cret-Pa55';
const ask = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };

const staticBackend = (name: string, port: number): string => `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec: {static: {host: 127.0.0.1, port: ${port}}}
`;

const mcpBackend = (name: string, port: number, policies: string): string => `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    targets: [{name: t, static: {host: 127.0.0.1, port: ${port}, path: /mcp, policies: ${policies}}}]
`;

interface Ports {
  proxy: string;
  mcp: number;
  vendor: number;
  hole: number;
  alpn: number;
  p256: number;
  h2c: number;
  ca: string;
}

function manifests(p: Ports): string {
  const via = (mode: string) => `tunnel: {url: "http://${p.proxy}", mode: ${mode}, secretRef: {name: proxy-auth}}`;
  const tls = (extra: string) => `tls: {caCertificateRefs: [{name: test-ca}], sni: backend.test${extra}}`;
  const route = (name: string, to: string, policy?: string): string =>
    `${aiRoute(name, `/${name}`, to)}${policy ? routeBackendPolicy(name, policy) : ''}`;
  return [
    GATEWAY_WEB,
    `apiVersion: v1
kind: ConfigMap
metadata: {name: test-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(p.ca)}}
`,
    secret('proxy-auth', { username: 'gw', password: PASSWORD }),
    mcpBackend('mcp-tunnel', p.mcp, `{${via('Connect')}}`),
    route('mcp-tunnel', 'mcp-tunnel'),
    aiBackend('ai-tunnel', `openai: {model: gpt-4o}, host: 127.0.0.1, port: ${p.vendor}`, `{${via('Auto')}}`),
    route('ai-tunnel', 'ai-tunnel'),
    staticBackend('fwd', Number(p.proxy.split(':')[1])),
    aiBackend(
      'ai-ref',
      `openai: {model: gpt-4o}, host: 127.0.0.1, port: ${p.vendor}`,
      '{tunnel: {backendRef: {group: gw.dev, kind: GwBackend, name: fwd}, mode: Connect, secretRef: {name: proxy-auth}}}',
    ),
    route('ai-ref', 'ai-ref'),
    aiBackend('ai-hole', `openai: {model: gpt-4o}, host: 127.0.0.1, port: ${p.hole}`, '{tcp: {connectTimeout: 300ms}}'),
    route('ai-hole', 'ai-hole'),
    staticBackend('alpn', p.alpn),
    route('alpn-h2', 'alpn', `{${tls(', alpnProtocols: [h2, http/1.1]')}}`),
    route('alpn-default', 'alpn', `{${tls('')}}`),
    staticBackend('p256', p.p256),
    route('groups-p256', 'p256', `{${tls(', keyExchangeGroups: [P-256]')}}`),
    route('groups-p384', 'p256', `{${tls(', keyExchangeGroups: [P-384]')}}`),
    staticBackend('h2c', p.h2c),
    route('h2c-tunnel', 'h2c', `{http: {version: HTTP2}, ${via('Auto')}}`),
    route('h2-tunnel', 'alpn', `{http: {version: HTTP2}, ${tls('')}, ${via('Connect')}}`),
    staticBackend('h2-hole', p.hole),
    route('h2-hole', 'h2-hole', '{http: {version: HTTP2}, tcp: {connectTimeout: 300ms}}'),
  ].join('---\n');
}

describe('one upstream dialer on every upstream kind', () => {
  let proxy: ForwardProxy;
  let hole: ForwardProxy;
  let mcp: HttpFixture;
  let vendor: FakeVendor;
  let alpn: Http2SecureServer;
  let p256: Server;
  let h2c: Http2Server;
  const h2cSeen: string[] = [];
  let runtime: ProxyRuntime;
  let base: string;
  const filling: Socket[] = [];
  const selected: (string | false | null)[] = [];

  beforeAll(async () => {
    const ca = await testCa();
    const leaf = issueLeaf(ca, ['backend.test'], 'server');
    // Answers h2 and HTTP/1.1 alike; records the protocol each connection's handshake selected.
    alpn = createSecureServer({ cert: leaf.cert, key: leaf.key, allowHTTP1: true }, (_req, res) => res.end('alpn'));
    alpn.on('secureConnection', (s: TLSSocket) => selected.push(s.alpnProtocol));
    h2c = createH2cServer((req, res) => (h2cSeen.push(req.httpVersion), res.end('h2c')));
    p256 = createHttpsServer({ cert: leaf.cert, key: leaf.key, ecdhCurve: 'P-256' }, (_req, res) => res.end('p256'));
    await Promise.all([
      new Promise<void>((r) => alpn.listen(0, '127.0.0.1', r)),
      new Promise<void>((r) => p256.listen(0, '127.0.0.1', r)),
      new Promise<void>((r) => h2c.listen(0, '127.0.0.1', r)),
    ]);
    [proxy, hole, mcp, vendor] = await Promise.all([
      ForwardProxy.start({ user: 'gw', password: PASSWORD }),
      ForwardProxy.start({ blackhole: true }),
      startHttpFixture({ id: 'tunnelled' }),
      startFakeVendor('openai'),
    ]);
    const [host, port] = hole.address.split(':');
    for (let i = 0; i < 4; i++) filling.push(connect(Number(port), host).on('error', () => undefined));
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
    await runtime.apply(
      translatedIr(
        manifests({
          proxy: proxy.address,
          mcp: Number(new URL(mcp.url).port),
          vendor: vendor.port,
          hole: Number(port),
          alpn: (alpn.address() as AddressInfo).port,
          p256: (p256.address() as AddressInfo).port,
          h2c: (h2c.address() as AddressInfo).port,
          ca: ca.caCert,
        }),
        'default/web',
        { enableModels: true },
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });
  afterAll(async () => {
    for (const s of filling) s.destroy();
    await runtime?.close();
    await Promise.all([proxy?.stop(), hole?.stop(), mcp?.close(), vendor?.close()]);
    alpn?.close();
    p256?.close();
    h2c?.close();
  });

  it("reaches an MCP target through its own policies.tunnel (CONNECT with the Secret's credential)", async () => {
    const before = proxy.handled.length;
    const { client } = await connectClient(`${base}/mcp-tunnel`);
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'tunnelled' } }))).toContain('tunnelled');
    } finally {
      await client.close();
    }
    const handled = proxy.handled.slice(before);
    expect(handled).toContainEqual({ method: 'CONNECT', target: `127.0.0.1:${new URL(mcp.url).port}` });
    expect(handled.every((h) => !h.refused)).toBe(true);
  });

  it("sends an AI provider's requests through its policies.tunnel (Auto: absolute form to a plaintext vendor)", async () => {
    const before = proxy.handled.length;
    const res = await chat(`${base}/ai-tunnel/v1/chat/completions`, ask);
    expect(res.status).toBe(200);
    expect(proxy.handled.slice(before)).toContainEqual({
      method: 'POST',
      target: `http://127.0.0.1:${vendor.port}/v1/chat/completions`,
    });
  });

  it('finds the forward proxy a tunnel.backendRef names (a static GwBackend) and CONNECTs through it', async () => {
    const before = proxy.handled.length;
    const res = await chat(`${base}/ai-ref/v1/chat/completions`, ask);
    expect(res.status).toBe(200);
    expect(proxy.handled.slice(before)).toContainEqual({ method: 'CONNECT', target: `127.0.0.1:${vendor.port}` });
  });

  it("bounds an AI provider's connect by its policies.tcp.connectTimeout", async () => {
    const started = Date.now();
    const res = await chat(`${base}/ai-hole/v1/chat/completions`, ask);
    // The default connect timeout is 10 s: an answer well before it means the provider's 300 ms applied.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.status).toBeGreaterThanOrEqual(500);
  });

  it('offers backend.tls.alpnProtocols as written: h2 first is selected, without it HTTP/1.1', async () => {
    selected.length = 0;
    const h2 = await rawRequest(`${base}/alpn-h2/x`);
    expect(h2.status).toBe(200);
    expect(selected).toEqual(['h2']);
    selected.length = 0;
    const h1 = await rawRequest(`${base}/alpn-default/x`);
    expect(h1.status).toBe(200);
    expect(selected).toEqual(['http/1.1']);
  });

  it('offers only backend.tls.keyExchangeGroups: P-384 cannot meet a P-256-only backend, P-256 can', async () => {
    expect((await rawRequest(`${base}/groups-p256/x`)).status).toBe(200);
    const refused = await rawRequest(`${base}/groups-p384/x`);
    expect(refused.status).toBe(503);
    expect(refused.body).toContain('TLS to backend');
  });

  it('tunnels an h2c edge: CONNECT even in Auto mode (absolute form is HTTP/1.1), HTTP/2 inside', async () => {
    const before = proxy.handled.length;
    h2cSeen.length = 0;
    const res = await rawRequest(`${base}/h2c-tunnel/x`);
    expect(res.status).toBe(200);
    expect(res.body).toBe('h2c');
    expect(h2cSeen).toEqual(['2.0']);
    const handled = proxy.handled.slice(before);
    expect(handled).toContainEqual({ method: 'CONNECT', target: `127.0.0.1:${(h2c.address() as AddressInfo).port}` });
    expect(handled.every((h) => !h.refused)).toBe(true);
  });

  it('tunnels an h2 edge: CONNECT, then TLS with the test CA selecting h2 by ALPN inside the tunnel', async () => {
    const before = proxy.handled.length;
    selected.length = 0;
    const res = await rawRequest(`${base}/h2-tunnel/x`);
    expect(res.status).toBe(200);
    expect(selected).toEqual(['h2']);
    expect(proxy.handled.slice(before)).toContainEqual({
      method: 'CONNECT',
      target: `127.0.0.1:${(alpn.address() as AddressInfo).port}`,
    });
  });

  it("bounds an HTTP/2 edge's connect by its policies.tcp.connectTimeout", async () => {
    const started = Date.now();
    const res = await rawRequest(`${base}/h2-hole/x`);
    // The default connect timeout is 10 s: an answer well before it means the edge's 300 ms applied.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.status).toBeGreaterThanOrEqual(500);
  });
});
