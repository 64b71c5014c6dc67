// One client cannot lock the MCP route (issue 22): sessions never pin upstream connections, session
// caps answer 429/503 with Retry-After, a session belongs to the token subject that created it, idle
// sessions expire, and listeners close slow or excess connections. All through real listeners.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { makeSigningKey } from '../support/oidc/provider.js';
import { startJwksServer, type JwksServer } from '../support/oidc/jwks-server.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { connectClient, startProxy, stdioTarget, textOf, waitFor, type Started } from './harness.js';

const initBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function initialize(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: string }> {
  const res = await fetch(url, { method: 'POST', headers: { ...json, ...headers }, body: initBody });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

async function listTools(url: string, session: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...json, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  await res.text();
  return res.status;
}

describe('sessions do not pin upstream connections', () => {
  let target: HttpFixture;
  let proxy: Started;
  beforeAll(async () => {
    target = await startHttpFixture({ id: 'h' });
    proxy = await startProxy(
      { targets: [{ name: 'h', streamableHttp: { url: target.url } }] },
      { limits: { maxSessionsPerClient: 1000 } },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await target?.close();
  });

  it('after 300 sessions that hold their target stream open and are never deleted, a new client initializes and calls a tool', async () => {
    // More than the request pool's 256 connections: each session's target GET stream stays open.
    for (let i = 0; i < 300; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => initialize(proxy.url)));
      expect(batch.map((r) => r.status)).toEqual(Array(50).fill(200));
    }
    await waitFor(() => target.sessions() >= 300, 60_000);
    // A pinned pool would hold this call until the test's own timeout.
    const { client } = await connectClient(proxy.url);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'still here' } });
    expect(textOf(result)).toContain('still here');
    await client.close();
  }, 90_000);
});

describe('session caps', () => {
  it('answers 429 too_many_sessions with Retry-After past the per-client cap, and frees the slot on DELETE', async () => {
    const proxy = await startProxy(
      { targets: [stdioTarget('t')] },
      { limits: { maxSessionsPerClient: 2, sessionIdleMs: 20_000 } },
    );
    try {
      const first = await initialize(proxy.url);
      await initialize(proxy.url);
      const third = await initialize(proxy.url);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('20');
      const id = first.headers.get('mcp-session-id') ?? '';
      expect((await fetch(proxy.url, { method: 'DELETE', headers: { 'mcp-session-id': id } })).status).toBe(200);
      expect((await initialize(proxy.url)).status).toBe(200);
      const metrics = await proxy.runtime.metrics.registry.metrics();
      expect(metrics).toMatch(/gw_mcp_sessions_refused_total\{reason="client_cap"\} 1/);
    } finally {
      await proxy.close();
    }
  });

  it('answers 503 overloaded with Retry-After when the proxy holds its maximum', async () => {
    const proxy = await startProxy(
      { targets: [stdioTarget('t')] },
      { limits: { maxSessions: 1, maxSessionsPerClient: 10 } },
    );
    try {
      expect((await initialize(proxy.url)).status).toBe(200);
      const refused = await initialize(proxy.url);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(JSON.parse(refused.body)).toMatchObject({ error: 'overloaded' });
    } finally {
      await proxy.close();
    }
  });

  it('lets an idle session go after the idle timeout and counts it; its sealed id resumes it later', async () => {
    const proxy = await startProxy({ targets: [stdioTarget('t')] }, { limits: { sessionIdleMs: 200 } });
    try {
      const id = (await initialize(proxy.url)).headers.get('mcp-session-id') ?? '';
      expect(await listTools(proxy.url, id)).toBe(200);
      await waitFor(() => proxy.runtime.sessions.size === 0, 3000);
      expect(await proxy.runtime.metrics.registry.metrics()).toMatch(/gw_mcp_sessions_expired_total 1/);
      // The slot and the stdio process were freed; the id still opens (another replica could be serving it).
      expect(await listTools(proxy.url, id)).toBe(200);
      expect(proxy.runtime.sessions.size).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('answers 404 once a sealed id is older than the session max age', async () => {
    let now = Date.now();
    const proxy = await startProxy(
      { targets: [stdioTarget('t')] },
      { limits: { sessionMaxAgeMs: 400 }, clock: () => now },
    );
    try {
      const id = (await initialize(proxy.url)).headers.get('mcp-session-id') ?? '';
      now += 399;
      expect(await listTools(proxy.url, id)).toBe(200);
      now += 1;
      // Held here too, and let go: no replica opens the id any more.
      expect(await listTools(proxy.url, id)).toBe(404);
      expect(proxy.runtime.sessions.size).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});

describe('a session belongs to the subject that created it', () => {
  const issuer = 'https://issuer.test';
  const audience = 'https://mcp.test/mcp';
  let jwks: JwksServer;
  let sign: (sub: string) => Promise<string>;
  let proxy: Started;
  beforeAll(async () => {
    const key = await makeSigningKey('k1');
    const privateKey = (await importJWK(key.privateJwk, 'RS256')) as CryptoKey;
    sign = (sub) =>
      new SignJWT({ iss: issuer, aud: audience, sub })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    jwks = await startJwksServer([key.publicJwk]);
    proxy = await startProxy(
      {
        targets: [stdioTarget('t')],
        policies: {
          mcpAuthentication: {
            mode: 'strict',
            issuer,
            audiences: [audience],
            jwks: jwks.url,
            resourceMetadata: { resource: audience },
          },
        },
      },
      { security: createRouteSecurity() },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await jwks?.close();
  });

  it("answers 404 to another subject's token with the session id, and serves the creator", async () => {
    const alice = { authorization: `Bearer ${await sign('alice')}` };
    const bob = { authorization: `Bearer ${await sign('bob')}` };
    const created = await initialize(proxy.url, alice);
    expect(created.status).toBe(200);
    const id = created.headers.get('mcp-session-id') ?? '';
    expect(await listTools(proxy.url, id, bob)).toBe(404);
    expect((await fetch(proxy.url, { method: 'DELETE', headers: { ...bob, 'mcp-session-id': id } })).status).toBe(404);
    expect(await listTools(proxy.url, id, alice)).toBe(200);
  });
});

describe('listener connection hygiene', () => {
  let proxy: Started;
  let port = 0;
  beforeAll(async () => {
    proxy = await startProxy(
      { targets: [stdioTarget('t')] },
      { limits: { headersTimeoutMs: 1000, requestTimeoutMs: 1000, maxConnectionsPerSource: 4 } },
    );
    port = Number(new URL(proxy.url).port);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const open = (): Promise<Socket> =>
    new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => resolve(s));
    });
  const closed = (s: Socket): Promise<number> =>
    new Promise((resolve) => {
      const t0 = Date.now();
      if (s.destroyed) resolve(0);
      s.on('close', () => resolve(Date.now() - t0));
      s.on('error', () => undefined);
    });

  it('closes a connection that trickles its headers once the header timeout passes', async () => {
    const s = await open();
    const trickle = setInterval(() => {
      if (!s.destroyed) s.write('X');
    }, 200);
    s.write('GET /mcp HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    let answer = '';
    s.on('data', (d: Buffer) => {
      answer += d.toString();
    });
    const after = await closed(s);
    clearInterval(trickle);
    expect(after).toBeLessThan(3500);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('closes connections beyond the per-source cap at once and keeps the others', async () => {
    const kept = await Promise.all(Array.from({ length: 4 }, open));
    const extra = await open();
    expect(await closed(extra)).toBeLessThan(1000);
    expect(kept.every((s) => !s.destroyed)).toBe(true);
    for (const s of kept) s.destroy();
    expect(await proxy.runtime.metrics.registry.metrics()).toMatch(/gw_listener_connections_refused_total 1/);
  });
});
