// The admin address on a real loopback server: the API shows the applied snapshot by names and sources,
// never a secret (an OAuth client secret, a key hash, credentials in a target URL, a stdio target's
// arguments and environment); off loopback it needs the token file, with the token every API call needs
// it; a foreign Host or Origin and any method but GET are refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../../src/ir/load.js';
import { proxyAdminApi } from '../../../src/proxy/admin/api.js';
import { startAdmin, type AdminServer } from '../../../src/proxy/admin/server.js';
import { createMetrics } from '../../../src/proxy/metrics.js';
import { AccessLogWriter } from '../../../src/proxy/telemetry/access-log.js';
import { AccessTail } from '../../../src/proxy/telemetry/access-tail.js';
import type { AccessLog } from '../../../src/ir/types.js';
import { pino } from 'pino';
import { rawRequest } from '../http-forward-harness.js';

const SECRETS = [
  'client-secret-9f3e',
  'a'.repeat(64),
  'url-pass-77',
  'url-token-88',
  'stdio-arg-key-55',
  'env-key-66',
  'path-key-99',
];

const snapshot = normalizeSnapshot({
  version: 'v7',
  resources: [
    { bind: { name: 'b', port: 8080, address: '127.0.0.1' } },
    { listener: { name: 'l', bind: 'b', protocol: 'HTTP' } },
    {
      route: {
        name: 'HTTPRoute/default/mcp/0',
        listeners: ['l'],
        backends: [{ backend: 'GwBackend/default/tools', weight: 1 }],
        routeMatches: [{ path: { prefix: '/mcp' }, headers: [{ name: 'x-tenant', exact: 'route-on-this-value' }] }],
        policy: {
          mcpAuthentication: { issuer: 'https://idp.example', clientId: 'gw', clientSecret: SECRETS[0] },
          apiKeyAuthentication: { entries: [{ keySha256: SECRETS[1] }] },
        },
        provenance: { 'traffic.mcpAuthentication': 'GwPolicy default/auth' },
        refusals: [
          { field: 'spec.traffic.csrf', source: 'GwPolicy default/auth', reason: 'not enforced', security: true },
        ],
      },
    },
    {
      backend: {
        name: 'GwBackend/default/tools',
        mcp: {
          targets: [
            {
              name: 'remote',
              remote: {
                url: `https://user:${SECRETS[2]}@tools.example/mcp/${SECRETS[6]}/sse?token=${SECRETS[3]}`,
                protocol: 'STREAMABLE_HTTP',
              },
            },
            {
              name: 'local',
              stdio: { cmd: 'server', args: ['--key', SECRETS[4] as string], env: { KEY: SECRETS[5] as string } },
            },
          ],
        },
      },
    },
  ],
});

const metrics = createMetrics();
const runtime = {
  appliedSnapshot: () => snapshot,
  // `local` is ejected in a pool (route) that does not lead to this backend: it is not this target.
  ejectedNow: () => new Set(['HTTPRoute/default/mcp/0 remote', 'HTTPRoute/default/other/0 local']),
  sessions: { size: 3 },
  ready: true,
  metrics,
  accessTail: new AccessTail(5),
};
const api = proxyAdminApi(runtime, { gateway: 'default/gw', pod: 'p', version: '1' });
const uiDir = mkdtempSync(join(tmpdir(), 'gw-admin-ui-'));
writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>Gw</title>');
const servers: AdminServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(uiDir, { recursive: true, force: true });
});

async function start(opts: { tokenFile?: string } = {}): Promise<string> {
  const s = await startAdmin({ address: '127.0.0.1:0', uiDir, api, ...opts });
  servers.push(s);
  return `http://127.0.0.1:${s.port}`;
}

describe('the admin API on loopback', () => {
  let base: string;
  beforeAll(async () => {
    base = await start();
  });

  it('shows routes with policy field sources, refusals, targets with health and the session count, and no secret', async () => {
    const bodies: string[] = [];
    for (const name of ['overview', 'snapshot', 'mcp', 'llm']) {
      const res = await rawRequest(`${base}/ui/api/v1/${name}`);
      expect(res.status).toBe(200);
      bodies.push(res.body);
    }
    const [overview, snap, mcp] = bodies.map((b) => JSON.parse(b));
    expect(overview).toMatchObject({ role: 'proxy', gateway: 'default/gw', snapshotVersion: 'v7', ready: true });
    expect(snap.routes[0]).toMatchObject({
      matches: ['PathPrefix /mcp, header x-tenant'],
      policy: [{ field: 'traffic.mcpAuthentication', source: 'GwPolicy default/auth' }],
      refusals: [{ field: 'spec.traffic.csrf', security: true }],
    });
    expect(mcp).toEqual({
      targets: [
        {
          backend: 'GwBackend/default/tools',
          name: 'remote',
          transport: 'STREAMABLE_HTTP https://tools.example',
          health: 'ejected',
          ejectedIn: ['HTTPRoute/default/mcp/0'],
        },
        {
          backend: 'GwBackend/default/tools',
          name: 'local',
          transport: 'stdio server',
          health: 'serving',
          ejectedIn: [],
        },
      ],
      sessions: { active: 3, worker: null },
    });
    const all = bodies.join('\n');
    for (const secret of [...SECRETS, 'route-on-this-value']) expect(all).not.toContain(secret);
  });

  it('serves the UI with a strict content security policy', async () => {
    const res = await rawRequest(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('refuses a foreign Host (DNS rebinding), a foreign Origin and any method but GET', async () => {
    const host = await rawRequest(`${base}/ui/api/v1/overview`, { headers: { host: 'attacker.example' } });
    expect(host.status).toBe(403);
    const origin = await rawRequest(`${base}/ui/api/v1/overview`, { headers: { origin: 'http://attacker.example' } });
    expect(origin.status).toBe(403);
    const post = await rawRequest(`${base}/ui/api/v1/overview`, { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('live counters: requests, errors and latency by route and class, tokens and cost by model, calls by tool', async () => {
    const read = async () => JSON.parse((await rawRequest(`${base}/ui/api/v1/metrics`)).body);
    const before = await read();
    metrics.routeRequests.labels('HTTPRoute/default/mcp/0', '2xx').observe(0.25);
    metrics.routeRequests.labels('HTTPRoute/default/mcp/0', '5xx').observe(0.75);
    metrics.llmTokens.labels('openai', 'gpt-4o-mini', 'input').inc(12);
    metrics.llmTokens.labels('openai', 'gpt-4o-mini', 'output').inc(30);
    metrics.llmCost.labels('openai', 'gpt-4o-mini', 'output').inc(0.002);
    metrics.toolCalls.labels('remote', 'echo', 'ok').inc();
    metrics.errors.labels('upstream_unavailable', '503').inc();
    const after = await read();
    expect(after.at).toBeGreaterThanOrEqual(before.at);
    expect(before.requestsByRoute).toEqual([]);
    expect(after).toMatchObject({
      requestsByRoute: [{ key: 'HTTPRoute/default/mcp/0', value: 2 }],
      requestsByClass: [
        { key: '2xx', value: 1 },
        { key: '5xx', value: 1 },
      ],
      latencySumByRoute: [{ key: 'HTTPRoute/default/mcp/0', value: 1 }],
      tokensByModel: [{ key: 'gpt-4o-mini', value: 42 }],
      costByModel: [{ key: 'gpt-4o-mini', value: 0.002 }],
      toolCallsByTool: [{ key: 'remote/echo', value: 1 }],
      errorsByCode: [{ key: 'upstream_unavailable', value: 1 }],
    });
  });

  it("access-log tail: the listener's filtered lines, without the session, only while someone reads it", async () => {
    const cfg = {
      otelPreset: false,
      filter: 'response.code >= 400',
      add: [],
      remove: ['client'],
    } as unknown as AccessLog;
    const writer = new AccessLogWriter(cfg, pino({ level: 'silent' }), undefined, runtime.accessTail);
    const line = (path: string, status: number) => ({
      facts: {
        method: 'POST',
        path,
        host: 'gw',
        status,
        durationMs: 3,
        listener: 'l',
        client: '127.0.0.1',
        mcp: { method: 'tools/call', tool: 'echo', session: 'digest-of-session' },
      },
      headers: {},
    });
    writer.write(line('/unwatched', 500)); // nobody reads yet: not kept
    const tail = (after: number, wait: number) =>
      rawRequest(`${base}/ui/api/v1/access-log?after=${after}&wait=${wait}`).then((r) => JSON.parse(r.body));
    const first = await tail(0, 0);
    expect(first.entries).toEqual([]);
    // A long poll answers when a line arrives; the filter drops the 200.
    const waiting = tail(first.last, 10_000);
    writer.write(line('/ok', 200));
    writer.write(line('/mcp', 502));
    const got = await waiting;
    expect(got.entries).toHaveLength(1);
    expect(got.entries[0]).toMatchObject({ listener: 'l', fields: { path: '/mcp', status: 502, mcp_tool: 'echo' } });
    expect(got.entries[0].fields).not.toHaveProperty('mcp_session');
    expect(got.entries[0].fields).not.toHaveProperty('client');
    expect(JSON.stringify(got)).not.toContain('/unwatched');
    // Bounded: the ring keeps 5 lines, an old cursor learns how many it missed.
    for (let i = 0; i < 8; i++) writer.write(line(`/burst/${i}`, 500));
    const late = await tail(got.last, 0);
    expect(late.entries.map((e: { fields: { path: string } }) => e.fields.path)).toEqual([
      '/burst/3',
      '/burst/4',
      '/burst/5',
      '/burst/6',
      '/burst/7',
    ]);
    expect(late.dropped).toBe(3);
  });

  it("CEL playground: evaluates with the proxy's environment and reports errors in its words", async () => {
    const cel = async (body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
      const res = await rawRequest(`${base}/ui/api/v1/cel`, { method: 'POST', headers, body: JSON.stringify(body) });
      return { status: res.status, body: JSON.parse(res.body) };
    };
    const context = { request: { path: '/mcp', method: 'POST', headers: {} }, jwt: { sub: 'alice', groups: ['ops'] } };
    expect(await cel({ expression: 'request.path.startsWith("/mcp") && "ops" in jwt.groups', context })).toEqual({
      status: 200,
      body: { ok: true, value: true, type: 'bool' },
    });
    expect((await cel({ expression: 'jwt.sub + "@" + request.method', context })).body).toEqual({
      ok: true,
      value: 'alice@POST',
      type: 'string',
    });
    // Where it is used decides which variables exist, as on the proxy.
    expect((await cel({ expression: 'mcp.tool == "echo"', context, use: 'extAuth' })).body).toEqual({
      ok: false,
      phase: 'compile',
      error: 'expression names unknown variable "mcp"; known variables are request, jwt',
    });
    expect((await cel({ expression: 'jwt.email == "x"', context })).body).toMatchObject({
      ok: false,
      phase: 'evaluate',
    });
    expect((await cel({ expression: 'request.path ==', context })).body).toMatchObject({
      ok: false,
      phase: 'compile',
      error: expect.stringContaining('is not a valid CEL expression'),
    });
    // Comprehensions nested past two would run on the proxy's event loop for as long as their lists multiply.
    const ten = '[0,1,2,3,4,5,6,7,8,9]';
    const deep = `${ten}.all(a, ${ten}.exists(b, ${ten}.map(c, c).size() > 0))`;
    expect((await cel({ expression: deep, context })).body).toEqual({
      ok: false,
      phase: 'request',
      error: expect.stringContaining('3 nested comprehensions'),
    });
    expect((await cel({ expression: `${ten}.all(a, ${ten}.exists(b, a == b))`, context })).body).toEqual({
      ok: true,
      value: true,
      type: 'bool',
    });
    // A use named after an object's own property is not a use.
    expect((await cel({ expression: 'true', context, use: 'constructor' })).body).toMatchObject({
      ok: false,
      phase: 'request',
    });
    expect((await cel({ expression: 'true', context: { request: 'x' } })).body).toEqual({
      ok: false,
      phase: 'request',
      error: 'context.request: must be a JSON object',
    });
    // A JSON body only (a form post from another page would need a preflight this server never grants).
    expect((await cel({ expression: 'true', context }, { 'content-type': 'text/plain' })).status).toBe(400);
    expect(
      (
        await cel(
          { expression: 'true', context },
          { 'content-type': 'application/json', origin: 'http://evil.example' },
        )
      ).status,
    ).toBe(403);
    const uses = JSON.parse((await rawRequest(`${base}/ui/api/v1/cel`)).body);
    expect(uses.uses).toContainEqual({ name: 'extAuth', variables: ['request', 'jwt'] });
  });

  it('answers its own origin and loopback names as the MCP endpoint does (case-insensitive, *.localhost)', async () => {
    const port = new URL(base).port;
    const own = await rawRequest(`${base}/ui/api/v1/overview`, {
      headers: { host: `localhost:${port}`, origin: `http://LocalHost:${port}` },
    });
    expect(own.status).toBe(200);
    const sub = await rawRequest(`${base}/ui/api/v1/overview`, {
      headers: { host: `ui.localhost:${port}` },
    });
    expect(sub.status).toBe(200);
  });
});

describe('the admin token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-admin-token-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, 'admin-token-0123456789abcdef\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('off loopback the admin address does not start without a token file', async () => {
    await expect(startAdmin({ address: '0.0.0.0:0', uiDir, api })).rejects.toThrow(
      '--admin-address 0.0.0.0:0: off loopback the admin UI needs --admin-token-file',
    );
  });

  it('with a token every API call needs it as a bearer; the UI files load without it', async () => {
    const base = await start({ tokenFile });
    expect((await rawRequest(`${base}/ui/api/v1/overview`)).status).toBe(401);
    const wrong = await rawRequest(`${base}/ui/api/v1/overview`, {
      headers: { authorization: 'Bearer admin-token-0123456789abcdeX' },
    });
    expect(wrong.status).toBe(401);
    const right = await rawRequest(`${base}/ui/api/v1/overview`, {
      headers: { authorization: 'Bearer admin-token-0123456789abcdef' },
    });
    expect(right.status).toBe(200);
    expect((await rawRequest(`${base}/`)).status).toBe(200);
  });
});
