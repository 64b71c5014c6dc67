// Discovery, registration input checks, CORS preflights and {base_url} derivation, over real HTTP.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
});

/** node:http, because fetch does not let a caller set Host. */
function raw(
  path: string,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw.origin}${path}`, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

const registration = '/.well-known/oauth-authorization-server/client-registration';

describe('with resourceMetadata.resource set', () => {
  beforeAll(() => {
    gw.configure({
      mode: 'strict',
      // Nothing listens on port 1: the provider is unreachable on purpose.
      issuer: 'http://127.0.0.1:1/tenant',
      jwks: 'http://127.0.0.1:1/keys',
      clientId: 'pre-registered',
      resourceMetadata: {
        resource: 'https://gw.example.com/mcp',
        scopesSupported: ['api://x/mcp.tools'],
        bearerMethodsSupported: ['header'],
      },
    });
  });

  it('serves protected-resource metadata with exactly the seed fields, at the MCP path form and the root form', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${gw.origin}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toStrictEqual({
        resource: 'https://gw.example.com/mcp',
        authorization_servers: ['https://gw.example.com/mcp'],
        mcp_protocol_version: '2026-07-28',
        resource_type: 'mcp-server',
        bearer_methods_supported: ['header'],
        scopes_supported: ['api://x/mcp.tools'],
      });
    }
  });

  it('takes {base_url} in the 401 challenge from the resource origin, not from Host', async () => {
    const res = await raw('/mcp', 'POST', { host: 'attacker.example' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://gw.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('answers 502 with a JSON error when the provider metadata cannot be fetched', async () => {
    const res = await fetch(`${gw.origin}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'The identity provider metadata is unavailable',
    });
  });

  for (const path of [
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-authorization-server/mcp',
    registration,
  ]) {
    it(`answers a CORS preflight on ${path}`, async () => {
      const res = await fetch(`${gw.origin}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://ide.example',
          'access-control-request-method': path === registration ? 'POST' : 'GET',
          'access-control-request-headers': 'content-type, mcp-protocol-version',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain(path === registration ? 'POST' : 'GET');
      expect(res.headers.get('access-control-allow-headers')).toBe('content-type, mcp-protocol-version');
    });
  }

  it('rejects a registration body that is not JSON with 400 invalid_client_metadata', async () => {
    const res = await fetch(`${gw.origin}${registration}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'The request body must be a JSON object',
    });
  });

  it('rejects redirect_uris that are not absolute URLs with 400 invalid_redirect_uri', async () => {
    const res = await fetch(`${gw.origin}${registration}`, {
      method: 'POST',
      body: JSON.stringify({ redirect_uris: ['/relative'] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });

  it('rejects a registration body over 64 KiB with 413', async () => {
    const res = await fetch(`${gw.origin}${registration}`, {
      method: 'POST',
      body: JSON.stringify({ client_name: 'x'.repeat(70 * 1024) }),
    });
    expect(res.status).toBe(413);
  });

  it('answers 405 for a GET on the registration endpoint', async () => {
    const res = await fetch(`${gw.origin}${registration}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('leaves other paths to the proxy', async () => {
    const res = await fetch(`${gw.origin}/.well-known/something-else`);
    expect(res.status).toBe(404);
  });
});

describe('without resourceMetadata.resource', () => {
  beforeAll(() => {
    gw.configure({
      mode: 'strict',
      issuer: 'http://127.0.0.1:1/tenant',
      jwks: 'http://127.0.0.1:1/keys',
      mcpPath: '/team/mcp',
    });
  });

  it('derives {base_url} from Host and X-Forwarded-Proto and the paths from the MCP mount path', async () => {
    const res = await raw('/team/mcp', 'POST', { host: 'gw.internal:8443', 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="https://gw.internal:8443/.well-known/oauth-protected-resource/team/mcp"',
    );
    const doc = JSON.parse(
      (await raw('/.well-known/oauth-protected-resource/team/mcp', 'GET', { host: 'gw.internal:8443' })).body,
    ) as Record<string, unknown>;
    expect(doc.resource).toBe('http://gw.internal:8443/team/mcp');
    expect(doc.bearer_methods_supported).toEqual(['header']);
    expect(doc.scopes_supported).toEqual([]);
  });

  it('ignores a Host header that is not a host name', async () => {
    const res = await raw('/team/mcp', 'POST', { host: 'evil"/x' });
    expect(res.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/team/mcp"',
    );
  });
});
