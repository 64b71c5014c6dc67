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

const runtime = {
  appliedSnapshot: () => snapshot,
  ejectedNow: () => new Set(['HTTPRoute/default/mcp/0 remote']),
  sessions: { size: 3 },
  ready: true,
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
        },
        { backend: 'GwBackend/default/tools', name: 'local', transport: 'stdio server', health: 'serving' },
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
