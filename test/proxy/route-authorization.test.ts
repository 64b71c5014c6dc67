// Route-level authorization as seed 000 says: every MCP request is checked, initialize included, and a
// request no rule allows gets 403; rules reading mcp.tool (prompt, resource) say nothing about requests
// that name none, so `mcp.tool != "x"` does not deny prompts. Real JWTs, real listener, stdio target.
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { makeSigningKey } from '../support/oidc/provider.js';
import { startJwksServer, type JwksServer } from '../support/oidc/jwks-server.js';
import { startProxy, stdioTarget, type Started } from './harness.js';

const issuer = 'https://issuer.test';
const audience = 'https://mcp.test/mcp';
let jwks: JwksServer;
let token: (roles: string[]) => Promise<string>;
let proxy: Started | undefined;

beforeAll(async () => {
  const key = await makeSigningKey('k1');
  const privateKey = (await importJWK(key.privateJwk, 'RS256')) as CryptoKey;
  token = (roles) =>
    new SignJWT({ iss: issuer, aud: audience, sub: 'u', roles })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  jwks = await startJwksServer([key.publicJwk]);
});
afterAll(async () => {
  await jwks?.close();
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

async function withRules(rules: string[]): Promise<Started> {
  proxy = await startProxy(
    {
      targets: [stdioTarget('t')],
      prefixMode: 'Never',
      policies: {
        mcpAuthentication: {
          mode: 'strict',
          issuer,
          audiences: [audience],
          jwks: jwks.url,
          resourceMetadata: { resource: audience },
        },
        authorization: { rules },
      },
    },
    { security: createRouteSecurity() },
  );
  return proxy;
}

async function rpc(
  p: Started,
  bearer: string,
  method: string,
  params: Record<string, unknown> = {},
  session?: string,
): Promise<{ status: number; session: string; body: string }> {
  const res = await fetch(p.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Bearer ${bearer}`,
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, session: res.headers.get('mcp-session-id') ?? '', body: await res.text() };
}

const initParams = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } };

describe('route-level authorization on MCP routes', () => {
  it('refuses initialize with 403 to a token no rule allows, and serves one a rule allows', async () => {
    const p = await withRules(['"admin" in jwt.roles']);
    const denied = await rpc(p, await token(['user']), 'initialize', initParams);
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body)).toMatchObject({ error: 'forbidden' });
    const admin = await token(['admin']);
    const ok = await rpc(p, admin, 'initialize', initParams);
    expect(ok.status).toBe(200);
    expect((await rpc(p, admin, 'ping', {}, ok.session)).status).toBe(200);
  });

  it('checks ping and other methods of an open session too', async () => {
    const p = await withRules(['"admin" in jwt.roles || request.headers["x-allow-init"] == "yes"']);
    const user = await token(['user']);
    const res = await fetch(p.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${user}`,
        'x-allow-init': 'yes',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initParams }),
    });
    const session = res.headers.get('mcp-session-id') ?? '';
    expect(res.status).toBe(200);
    for (const method of ['ping', 'resources/templates/list', 'logging/setLevel']) {
      expect(
        (await rpc(p, user, method, method === 'logging/setLevel' ? { level: 'info' } : {}, session)).status,
        method,
      ).toBe(403);
    }
  });

  it('mcp.tool != "pid" denies that tool only: prompts and resources stay readable', async () => {
    const p = await withRules(['mcp.tool != "pid"']);
    const t = await token([]);
    const { session } = await rpc(p, t, 'initialize', initParams);
    expect((await rpc(p, t, 'tools/call', { name: 'pid', arguments: {} }, session)).status).toBe(403);
    expect((await rpc(p, t, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, session)).status).toBe(200);
    const prompt = await rpc(p, t, 'prompts/get', { name: 'greet', arguments: { who: 'a' } }, session);
    expect(prompt.status).toBe(200);
    expect(prompt.body).not.toContain('"error"');
    const resource = await rpc(p, t, 'resources/read', { uri: 'fixture://t/info' }, session);
    expect(resource.status).toBe(200);
    expect(resource.body).not.toContain('"error"');
  });

  it('"admins anything, others only echo": others initialize and call echo, and nothing else', async () => {
    const p = await withRules(['"admin" in jwt.roles', 'mcp.tool == "echo"']);
    const t = await token(['user']);
    const { status, session } = await rpc(p, t, 'initialize', initParams);
    expect(status).toBe(200);
    expect((await rpc(p, t, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, session)).status).toBe(200);
    expect((await rpc(p, t, 'tools/call', { name: 'add', arguments: {} }, session)).status).toBe(403);
    const listed = JSON.parse((await rpc(p, t, 'tools/list', {}, session)).body) as {
      result: { tools: { name: string }[] };
    };
    expect(listed.result.tools.map((x) => x.name)).toEqual(['echo']);
  });
});
