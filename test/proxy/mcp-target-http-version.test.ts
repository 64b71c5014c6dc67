// `backend.http.version` on MCP targets (issue 37): HTTP2 speaks HTTP/2 to the target, by prior knowledge
// (h2c) on http and by ALPN h2 alone on https; HTTP1 speaks HTTP/1.1 only, even where the ALPN list offers h2.
// The targets are the real MCP SDK servers (streamable HTTP and legacy SSE) on node:http2's compat request and
// response: h2c only (node:http2 createServer has no HTTP/1.1 fallback), TLS with allowHTTP1 false, and TLS
// accepting both. Each records the HTTP version of every request it saw, so a setting the proxy skipped shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { startSseFixture, type SseFixture } from '../fixtures/mcp-sse-server.js';
import { issueLeaf, testCa } from '../support/test-certs.js';
import { ForwardProxy } from './forward-proxy.js';
import { log } from './http-forward-harness.js';
import { connectClient, textOf } from './harness.js';
import { aiRoute } from './llm/llm-harness.js';
import { GATEWAY_WEB, routeBackendPolicy, translatedIr } from './translated-ir.js';

const portOf = (url: string): number => Number(new URL(url).port);

/** GwBackend `name` with one target `t` at 127.0.0.1:`port`; `extra` is more of the target's flow `static` map. */
function mcpBackend(name: string, port: number, extra = ''): string {
  return `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    targets: [{name: t, static: {host: 127.0.0.1, port: ${port}, path: /mcp${extra}}}]
`;
}

/** HTTPRoute `name` on /`name` to GwBackend `backend`, with a GwPolicy setting `policy` (flow YAML) when given. */
const route = (name: string, backend: string, policy?: string): string =>
  `${aiRoute(name, `/${name}`, backend)}${policy ? routeBackendPolicy(name, policy) : ''}`;

describe('MCP targets with http.version', () => {
  let h2c: HttpFixture;
  let h2tls: HttpFixture;
  let both: HttpFixture;
  let sse: SseFixture;
  let proxy: ForwardProxy;
  let runtime: ProxyRuntime;
  let base = '';

  beforeAll(async () => {
    const ca = await testCa();
    const server = issueLeaf(ca, ['mcp.test'], 'server');
    const tls = { cert: server.cert, key: server.key };
    [h2c, h2tls, both, sse, proxy] = await Promise.all([
      startHttpFixture({ id: 'h2c', http2: { allowHTTP1: false } }),
      startHttpFixture({ id: 'h2', tls, http2: { allowHTTP1: false } }),
      startHttpFixture({ id: 'both', tls, http2: { allowHTTP1: true } }),
      startSseFixture('sse', { h2c: true }),
      ForwardProxy.start(),
    ]);
    const targetTls = (extra = '') => `tls: {caCertificateRefs: [{name: test-ca}], sni: mcp.test${extra}}`;
    const manifests = [
      GATEWAY_WEB,
      `apiVersion: v1
kind: ConfigMap
metadata: {name: test-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(ca.caCert)}}
`,
      mcpBackend('h2c', portOf(h2c.url)),
      route('h2c', 'h2c', '{http: {version: HTTP2}, auth: {key: h2-secret}}'),
      route('h2c-unset', 'h2c'),
      route('h2c-timeout', 'h2c', '{http: {version: HTTP2, requestTimeout: 300ms}}'),
      route('h2c-tunnel', 'h2c', `{http: {version: HTTP2}, tunnel: {url: "http://${proxy.address}"}}`),
      // The target's own policies: TLS and the version.
      mcpBackend('h2tls', portOf(h2tls.url), `, policies: {${targetTls()}, http: {version: HTTP2}}`),
      route('h2tls', 'h2tls'),
      mcpBackend('h2tls-unset', portOf(h2tls.url), `, policies: {${targetTls()}}`),
      route('h2tls-unset', 'h2tls-unset'),
      // An ALPN list offering h2 first: the server selects it unless HTTP1 leaves it out.
      mcpBackend('both', portOf(both.url), `, policies: {${targetTls(', alpnProtocols: [h2, http/1.1]')}}`),
      route('both-alpn', 'both'),
      route('both-http1', 'both', '{http: {version: HTTP1}}'),
      mcpBackend('sse', portOf(sse.url)).replace('path: /mcp', 'path: /sse, protocol: SSE'),
      route('sse', 'sse', '{http: {version: HTTP2}}'),
    ].join('---\n');
    const ir = translatedIr(manifests);
    // Nothing of it refused: the routes carry no refusal of http.version.
    const refused = ir.resources.flatMap((r) => r.route?.backends.flatMap((b) => b.refusals) ?? []);
    expect(refused.map((r) => r.field)).toEqual([]);
    runtime = new ProxyRuntime({ log });
    await runtime.apply(ir);
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await Promise.all([h2c?.close(), h2tls?.close(), both?.close(), sse?.close(), proxy?.stop()]);
  });

  /** tools/list and tools/call `echo` through route `path`; the target's answers are SSE streams (not JSON). */
  async function listAndEcho(path: string): Promise<{ tools: string[]; echo: string }> {
    const { client } = await connectClient(`${base}/${path}`);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      const echo = textOf(await client.callTool({ name: 'echo', arguments: { text: `via ${path}` } }));
      return { tools, echo };
    } finally {
      await client.close();
    }
  }

  async function fails(path: string): Promise<string> {
    return connectClient(`${base}/${path}`).then(
      async ({ client }) => {
        await client.close();
        return 'connected';
      },
      (e: unknown) => String(e),
    );
  }

  it('speaks h2c by prior knowledge to an HTTP/2-only target, one target session, the credential on each call', async () => {
    const before = h2c.versions.length;
    const { tools, echo } = await listAndEcho('h2c');
    expect(tools).toContain('echo');
    expect(echo).toContain('via h2c');
    const seen = h2c.versions.slice(before);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen)).toEqual(new Set(['2.0']));
    const headers = h2c.headers.slice(before);
    for (const h of headers) expect(h.authorization).toBe('Bearer h2-secret');
    // Once the target began its session (initialize answered), every request carries it.
    const ids = headers.map((h) => h['mcp-session-id']);
    const after = ids.slice(ids.findIndex((id) => id !== undefined));
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(new Set(after).size).toBe(1);
    expect(after[0]).toMatch(/\S/);
  });

  it('fails to reach the HTTP/2-only target without http.version HTTP2 (HTTP/1.1 is all it would speak)', async () => {
    const before = h2c.versions.length;
    expect(await fails('h2c-unset')).toMatch(/target failed to initialize/);
    expect(h2c.versions.length).toBe(before);
  });

  it('streams an SSE answer over HTTP/2: the progress events, then the result', async () => {
    const { client } = await connectClient(`${base}/h2c`);
    try {
      const progress: number[] = [];
      const r = await client.callTool({ name: 'slow', arguments: { steps: 3, ms: 20 } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      expect(textOf(r)).toBe('done 3');
      expect(progress).toEqual([1, 2, 3]);
    } finally {
      await client.close();
    }
  });

  it("bounds a call over HTTP/2 by the backend's requestTimeout", async () => {
    const { client } = await connectClient(`${base}/h2c-timeout`);
    try {
      const started = Date.now();
      const err = await client.callTool({ name: 'slow', arguments: { steps: 4, ms: 1_000 } }).then(
        () => '',
        (e: unknown) => String(e),
      );
      expect(err).toMatch(/timed out/i);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await client.close();
    }
  });

  it('goes through the CONNECT tunnel (Auto mode: HTTP/2 is never sent in absolute form)', async () => {
    const before = h2c.versions.length;
    expect((await listAndEcho('h2c-tunnel')).echo).toContain('via h2c-tunnel');
    expect(proxy.handled).toContainEqual(
      expect.objectContaining({ method: 'CONNECT', target: `127.0.0.1:${portOf(h2c.url)}` }),
    );
    expect(new Set(h2c.versions.slice(before))).toEqual(new Set(['2.0']));
  });

  it("offers ALPN h2 alone over TLS to an h2-only server (the target's own policies.http.version)", async () => {
    const before = h2tls.versions.length;
    const handshakes = h2tls.handshakes.length;
    expect((await listAndEcho('h2tls')).tools).toContain('echo');
    expect(new Set(h2tls.versions.slice(before))).toEqual(new Set(['2.0']));
    expect(h2tls.handshakes.slice(handshakes)).toContainEqual(expect.objectContaining({ servername: 'mcp.test' }));
    // Without the version the TLS pool offers http/1.1 alone, which this server refuses.
    expect(await fails('h2tls-unset')).toMatch(/target failed to initialize/);
  });

  it('speaks HTTP/1.1 with HTTP1 even where the ALPN list offers h2 (which the server would select)', async () => {
    let before = both.versions.length;
    await listAndEcho('both-alpn');
    expect(new Set(both.versions.slice(before))).toEqual(new Set(['2.0']));
    before = both.versions.length;
    expect((await listAndEcho('both-http1')).echo).toContain('via both-http1');
    expect(new Set(both.versions.slice(before))).toEqual(new Set(['1.1']));
  });

  it('reaches a legacy SSE target over h2c: its stream and its message POSTs', async () => {
    const before = sse.requests.length;
    const { client } = await connectClient(`${base}/sse`);
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'legacy' } }))).toContain('legacy');
    } finally {
      await client.close();
    }
    const seen = sse.requests.slice(before);
    expect(seen.map((r) => r.method)).toEqual(expect.arrayContaining(['GET', 'POST']));
    expect(new Set(seen.map((r) => r.version))).toEqual(new Set(['2.0']));
  });
});
