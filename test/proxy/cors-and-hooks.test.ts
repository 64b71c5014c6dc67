import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startProxy, stdioTarget, type Started } from './harness.js';
import type { AuthorizeContext, RouteSecurityFactory } from '../../src/proxy/auth/hooks.js';
import { sendError, sendJson } from '../../src/proxy/http/http-error.js';

const cors = {
  allowOrigins: ['https://app.example', 'https://*.tools.example'],
  allowHeaders: ['*'],
  exposeHeaders: ['Mcp-Session-Id'],
};

describe('CORS', () => {
  let proxy: Started;
  beforeAll(async () => {
    proxy = await startProxy({ policies: { cors }, targets: [stdioTarget('t')] });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('answers a preflight from an allowed origin with 204', async () => {
    const res = await fetch(proxy.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-session-id',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type, mcp-session-id');
  });

  it('lets a browser send its bearer token: allowHeaders * reflects authorization', async () => {
    const res = await fetch(proxy.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://ide.tools.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://ide.tools.example');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
  });

  it('refuses a preflight from another origin with 403', async () => {
    const res = await fetch(proxy.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(403);
  });

  it('exposes Mcp-Session-Id on actual responses so browsers can read it', async () => {
    const res = await fetch(proxy.url, {
      method: 'POST',
      headers: { origin: 'https://app.example', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(res.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id, WWW-Authenticate');
    expect(res.headers.get('mcp-session-id')).toBeTruthy();
  });
});

// The real auth and CEL modules live in src/proxy/auth and src/proxy/policy/cel (another issue); these
// hand-written hooks stand in for them to pin the integration contract the runtime offers.
describe('authentication and authorization hooks', () => {
  let proxy: Started;
  const seen: AuthorizeContext[] = [];
  const security: RouteSecurityFactory = () => ({
    auth: {
      async handle(req: IncomingMessage, res: ServerResponse) {
        if (req.url !== '/.well-known/oauth-protected-resource/mcp') return false;
        sendJson(res, 200, { resource: 'http://example/mcp' });
        return true;
      },
      async authenticate(req: IncomingMessage, res: ServerResponse) {
        const auth = req.headers.authorization;
        if (!auth) {
          sendError(res, 'unauthorized', 'JWT token required');
          return null;
        }
        return { claims: { sub: auth.slice('Bearer '.length), roles: auth.endsWith('admin') ? ['admin'] : [] } };
      },
    },
    authorize: (ctx) => {
      seen.push(ctx);
      return ctx.mcp.tool !== 't_crash' && (ctx.mcp.tool !== 't_pid' || (ctx.jwt?.roles as string[]).includes('admin'));
    },
  });
  beforeAll(async () => {
    proxy = await startProxy({ policies: { cors }, prefixMode: 'Always', targets: [stdioTarget('t')] }, { security });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('answers CORS preflight without authentication', async () => {
    const res = await fetch(proxy.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
  });

  it('offers requests to the auth handler first and authenticates MCP traffic', async () => {
    const meta = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', proxy.url));
    expect(await meta.json()).toEqual({ resource: 'http://example/mcp' });
    const anonymous = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: 'unauthorized', error_description: 'JWT token required' });
  });

  it('hides tools the caller may not call and answers a denied call with 403', async () => {
    const user = new URL(proxy.url);
    const { client, transport } = await connectClient(user.href, {}, { authorization: 'Bearer alice' });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('t_echo');
    expect(names).not.toContain('t_pid');
    expect(names).not.toContain('t_crash');
    const denied = await fetch(proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: 'Bearer alice',
        'mcp-session-id': transport.sessionId ?? '',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 't_pid' } }),
    });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({
      error: 'forbidden',
      error_description: 'an authorization rule denies this request',
    });
    const call = seen.find(
      (c) => c.mcp.method === 'tools/call' && c.mcp.tool === 't_pid' && c.request.method === 'POST',
    );
    expect(call?.jwt).toEqual({ sub: 'alice', roles: [] });
    expect(call?.request.headers.authorization).toBe('Bearer alice');
    await client.close();
    const admin = await connectClient(user.href, {}, { authorization: 'Bearer admin' });
    expect((await admin.client.listTools()).tools.map((t) => t.name)).toContain('t_pid');
    await admin.client.close();
  });
});
