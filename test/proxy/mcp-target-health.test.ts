// Passive health (`backend.health`) on MCP targets, translated from manifests and served by a real proxy
// runtime in front of real streamable-HTTP MCP servers: a backend of two targets under load with one killed
// midway fails no more requests than consecutiveFailures, then serves without it (its tools not listed, a
// call to it answered at once with an error naming the ejection), and without health every request fails;
// in an open (stateful) session calls to the dead target turn into the ejection error after consecutiveFailures.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { GATEWAY_WEB, routeBackendPolicy, translatedIr } from './translated-ir.js';
import { aiRoute } from './llm/llm-harness.js';

/** A GwBackend of MCP targets `a` and `b` (stateless: every request initializes both; FailClosed). */
const backend = (name: string, a: HttpFixture, b: HttpFixture, routing = 'Stateless'): string => {
  const target = (t: string, f: HttpFixture) =>
    `{name: ${t}, static: {host: 127.0.0.1, port: ${new URL(f.url).port}, path: /mcp}}`;
  return `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    sessionRouting: ${routing}
    targets: [${target('a', a)}, ${target('b', b)}]
`;
};

const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

describe('passive health on MCP targets', () => {
  const fx: Record<string, HttpFixture> = {};
  let runtime: ProxyRuntime;
  let base: string;
  let now = 1_800_000_000_000;

  beforeAll(async () => {
    for (const n of ['a1', 'b1', 'a2', 'b2', 'a3', 'b3']) fx[n] = await startHttpFixture({ id: n, json: true });
    const f = (n: string): HttpFixture => fx[n] as HttpFixture;
    const manifests = [
      GATEWAY_WEB,
      backend('guarded', f('a1'), f('b1')),
      aiRoute('guarded', '/guarded', 'guarded'),
      routeBackendPolicy('guarded', '{health: {consecutiveFailures: 2, ejectionDuration: 30s}}'),
      backend('bare', f('a2'), f('b2')),
      aiRoute('bare', '/bare', 'bare'),
      backend('held', f('a3'), f('b3'), 'Stateful'),
      aiRoute('held', '/held', 'held'),
      routeBackendPolicy('held', '{health: {consecutiveFailures: 2}}'),
    ].join('\n');
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), clock: () => now });
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });
  afterAll(async () => {
    await runtime?.close();
    await Promise.all(Object.values(fx).map((f) => f.close()));
  });

  let id = 0;
  /** One JSON-RPC request; the parsed answer (an error when the HTTP status is not 200). */
  async function rpc(path: string, method: string, params: Record<string, unknown> = {}, session?: string) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: session ? { ...headers, 'mcp-session-id': session } : headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const text = await res.text();
    if (res.status !== 200) return { error: { message: `HTTP ${res.status}: ${text}` } };
    // Answered as JSON or as an SSE stream whose last data line is the answer.
    const data = text.startsWith('{')
      ? text
      : (text
          .match(/^data: (.*)$/gm)
          ?.pop()
          ?.slice(6) ?? '');
    return JSON.parse(data) as { result?: Record<string, unknown>; error?: { message: string; data?: unknown } };
  }
  const toolNames = (r: { result?: Record<string, unknown> }): string[] =>
    ((r.result?.tools ?? []) as { name: string }[]).map((t) => t.name);
  /** `n` requests one after another (tools/list and a call to a's echo in turn), `kill` after `killAt`; the failed ones. */
  async function load(path: string, n: number, killAt: number, kill: () => Promise<void>): Promise<number> {
    let failed = 0;
    for (let i = 1; i <= n; i++) {
      if (i === killAt) await kill();
      const r =
        i % 2
          ? await rpc(path, 'tools/list')
          : await rpc(path, 'tools/call', { name: 'a_echo', arguments: { text: 'x' } });
      if (r.error) failed++;
    }
    return failed;
  }
  const metric = (name: string) => runtime.metrics.registry.getSingleMetricAsString(name);

  it('ejects a target killed mid-load: no more failed requests than consecutiveFailures', async () => {
    expect(toolNames(await rpc('/guarded', 'tools/list')).sort()).toEqual(expect.arrayContaining(['a_echo', 'b_echo']));
    const failed = await load('/guarded', 40, 14, () => (fx.b1 as HttpFixture).close());
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThanOrEqual(2);
    expect(await metric('gw_upstream_ejections_total')).toMatch(
      /gw_upstream_ejections_total\{pool="[^"]*guarded[^"]*",endpoint="b",reason="failures"\} 1/,
    );
  });

  it('lists only the targets left and answers a call to the ejected one at once with an error naming the ejection', async () => {
    const list = await rpc('/guarded', 'tools/list');
    expect(toolNames(list)).toContain('a_echo');
    expect(toolNames(list)).not.toContain('b_echo');
    const call = await rpc('/guarded', 'tools/call', { name: 'b_echo', arguments: { text: 'x' } });
    expect(call.error?.message).toMatch(/^target b: ejected by passive health .* tried again in 30s$/);
    expect(call.error?.data).toEqual({ target: 'b', retryAfterSeconds: 30 });
  });

  it('tries the target again after ejectionDuration: still dead, one failure ejects it again', async () => {
    now += 30_001;
    expect((await rpc('/guarded', 'tools/list')).error).toBeDefined();
    const names = toolNames(await rpc('/guarded', 'tools/list'));
    expect(names).toContain('a_echo');
    expect(names.every((n) => n.startsWith('a_'))).toBe(true);
    expect(await metric('gw_upstream_ejections_total')).toMatch(/endpoint="b",reason="failures"\} 2/);
  });

  it('without health the same kill fails every request that follows', async () => {
    const failed = await load('/bare', 40, 10, () => (fx.b2 as HttpFixture).close());
    expect(failed).toBe(31);
  });

  it('in an open session, calls to a target that keeps failing get the ejection error and new sessions leave it out', async () => {
    const init = await fetch(`${base}/held`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    expect(session).not.toBe('');
    await (fx.b3 as HttpFixture).close();
    const calls = [];
    for (let i = 0; i < 4; i++)
      calls.push(await rpc('/held', 'tools/call', { name: 'b_echo', arguments: { text: 'x' } }, session));
    const messages = calls.map((c) => c.error?.message ?? '');
    // Two failed tries (consecutiveFailures), then the ejection answered without dialling.
    expect(messages.slice(0, 2).every((m) => m.includes('ECONNREFUSED'))).toBe(true);
    expect(messages.slice(2).every((m) => /^target b: ejected by passive health/.test(m))).toBe(true);
    const names = toolNames(await rpc('/held', 'tools/list', {}, session));
    expect(names).toContain('a_echo');
    expect(names.some((n) => n.startsWith('b_'))).toBe(false);
    // FailClosed: a new session would fail on the dead target; it leaves the ejected one out instead.
    const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } };
    expect((await rpc('/held', 'initialize', params)).error).toBeUndefined();
  });
});
