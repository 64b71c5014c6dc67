// IdpD bridging against a real oidc-provider mounted with IdpD's URL shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileStandaloneRules } from '../../../src/proxy/auth/index.js';
import { makeSigningKey, startIdpD, type OidcHarness } from '../../support/oidc/provider.js';
import { startGateway, type TestGateway } from './gateway.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
};
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let gw: TestGateway;
let idp: OidcHarness;
let mcpUrl: string;
const secret = 'idpd-client-secret-7f3a';

async function serviceToken(scope = 'read:all'): Promise<string> {
  const r = await idp.clientCredentials({
    grant_type: 'client_credentials',
    client_id: 'svc',
    client_secret: secret,
    scope,
    resource: mcpUrl,
  });
  expect(r.status).toBe(200);
  return r.body.access_token as string;
}

beforeAll(async () => {
  gw = await startGateway();
  mcpUrl = `${gw.origin}/mcp`;
  idp = await startIdpD({
    projectId: 'P2abc',
    serverId: 'MS7xyz',
    mcpUrl,
    key: await makeSigningKey('idpd-key-1'),
    roles: ['Tenant Admin'],
    clients: [
      {
        client_id: 'svc',
        client_secret: secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ],
  });
});
afterAll(async () => {
  await gw.close();
  await idp.close();
});

/** An RFC 7591 registration as an IDE sends it to the gateway. */
function register(): Promise<Response> {
  return fetch(`${gw.origin}/.well-known/oauth-authorization-server/client-registration`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'IDE',
      redirect_uris: ['http://127.0.0.1:33418/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
}

describe('IdpD', () => {
  beforeAll(() => {
    gw.configure(
      {
        mode: 'strict',
        issuer: idp.issuer,
        audiences: [mcpUrl],
        provider: 'idpd',
        clientId: 'pre-registered-client',
        resourceMetadata: { resource: mcpUrl, scopesSupported: ['read:all'], bearerMethodsSupported: ['header'] },
      },
      {
        authorizer: compileStandaloneRules([
          '"Tenant Admin" in jwt.roles && mcp.tool != "admin_reset"',
          'mcp.method != "tools/call"',
        ]),
      },
    );
  });

  it('answers 401 with the seed challenge and body when the MCP endpoint is called without a token', async () => {
    const res = await fetch(mcpUrl, { method: 'POST', headers: mcpHeaders, body: JSON.stringify(initialize) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gw.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ error: 'unauthorized', error_description: 'JWT token required' });
  });

  it('accepts a client-credentials token from the provider and serves MCP initialize', async () => {
    const token = await serviceToken();
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: `Bearer ${token}` },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text).toContain('event: message');
    expect(text).toContain('"serverInfo"');
  });

  it('fetches keys from the project-level key URL derived from the issuer', () => {
    expect(gw.upstream.map((u) => u.url)).toContain(`${idp.origin}/P2abc/.well-known/jwks.json`);
  });

  it('rejects a token minted for another resource as wrong audience', async () => {
    const r = await idp.clientCredentials({
      grant_type: 'client_credentials',
      client_id: 'svc',
      client_secret: secret,
      scope: 'read:all',
      resource: 'https://other.example/mcp',
    });
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...mcpHeaders, authorization: `Bearer ${r.body.access_token as string}` },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: 'invalid_token',
      error_description: 'The access token is not intended for this resource',
    });
  });

  it('serves authorization-server metadata from the provider discovery document with the gateway registration endpoint', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/mcp']) {
      const res = await fetch(`${gw.origin}${path}`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as Record<string, unknown>;
      expect(doc.issuer).toBe(idp.issuer);
      expect(doc.registration_endpoint).toBe(`${gw.origin}/.well-known/oauth-authorization-server/client-registration`);
      expect(doc.token_endpoint).toBe(`${idp.origin}/oauth2/v1/apps/token`);
      expect(doc.jwks_uri).toBe(`${idp.origin}/P2abc/.well-known/jwks.json`);
    }
  });

  it('returns the configured clientId on registration without calling the provider', async () => {
    const before = idp.hits.length;
    const res = await register();
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      client_id: 'pre-registered-client',
      token_endpoint_auth_method: 'none',
      client_name: 'IDE',
      redirect_uris: ['http://127.0.0.1:33418/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    });
    expect(idp.hits.length).toBe(before);
  });

  it('denies with 403 a tools/call that no authorization rule allows, and allows one that a rule does', async () => {
    const token = await serviceToken();
    const call = (name: string, args: Record<string, unknown>) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: { ...mcpHeaders, authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } }),
      });
    const denied = await call('admin_reset', {});
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({
      error: 'forbidden',
      error_description: 'An authorization rule denied this request',
    });
    const allowed = await call('echo', { text: 'hi' });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('hi');
  });
});

describe('IdpD without a clientId', () => {
  beforeAll(() => {
    gw.configure({
      mode: 'strict',
      issuer: idp.issuer,
      audiences: [mcpUrl],
      provider: 'idpd',
      resourceMetadata: { resource: mcpUrl },
    });
  });

  it('proxies registration to the management path derived from the issuer and returns the provider answer', async () => {
    const res = await register();
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(typeof body.client_id).toBe('string');
    expect(body.client_id).not.toBe('pre-registered-client');
    expect(idp.hits).toContain('POST /v1/mgmt/agentic/P2abc/MS7xyz/register');
  });
});
