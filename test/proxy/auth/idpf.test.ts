// IdpF bridging against real oidc-provider instances with IdpF's URL shapes (v2 login host, v1 token-service
// host), driven by the MCP SDK's own client OAuth flow end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  makeSigningKey,
  startIdpF,
  webClient,
  type OidcHarness,
  type SigningKey,
} from '../../support/oidc/provider.js';
import { TestOAuthProvider, userAuthorizes } from '../../support/oidc/mcp-oauth-client.js';
import { startGateway, type TestGateway } from './gateway.js';

const tenant = '7d1b6c2e-0000-4000-8000-00000000f00d';
const clientId = 'app-client';
const secret = 'idpf-web-secret~Q8.never-leaks';
const redirectUrl = 'http://127.0.0.1:9/callback';

let gw: TestGateway;
let login: OidcHarness;
let sts: OidcHarness;
let key: SigningKey;
let mcpUrl: string;
/** Every response the MCP client saw (headers and body text), to prove the secret never reaches it. */
const seen: string[] = [];

const clients = () => [webClient(clientId, secret, redirectUrl, ['client_credentials'])];

beforeAll(async () => {
  key = await makeSigningKey('idpf-key-1');
  gw = await startGateway();
  mcpUrl = `${gw.origin}/mcp`;
  login = await startIdpF({ tenantId: tenant, clientId, clients: clients(), key, roles: ['mcp.user'] });
  sts = await startIdpF({ tenantId: tenant, clientId, clients: clients(), key, v1: true });
});
afterAll(async () => {
  await gw.close();
  await login.close();
  await sts.close();
});

function configureV2(): void {
  gw.configure({
    mode: 'strict',
    issuer: login.issuer,
    audiences: [`api://${clientId}`, clientId],
    provider: 'idpf',
    clientId,
    clientSecret: secret,
    resourceMetadata: {
      resource: mcpUrl,
      scopesSupported: [`api://${clientId}/mcp.tools`],
      bearerMethodsSupported: ['header'],
    },
  });
}

/** A client-credentials token of the gateway's client from `idp`, for the MCP tools scope. */
const clientCredentials = (idp: OidcHarness, extra: Record<string, string> = {}) =>
  idp.clientCredentials({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: secret,
    scope: `api://${clientId}/mcp.tools`,
    ...extra,
  });

/** A POST of `body` to the MCP route with `token` as the bearer. */
const mcpPost = (token: unknown, body: string) =>
  fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token as string}`,
    },
    body,
  });

const recordingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const text = await res.clone().text();
  seen.push(JSON.stringify([...res.headers]), text);
  return res;
};

describe('IdpF with the MCP SDK client OAuth flow', () => {
  beforeAll(configureV2);

  it('discovers, registers, authorizes with PKCE, redeems the code through the gateway and calls a tool', async () => {
    const oauth = new TestOAuthProvider(redirectUrl);
    const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth, fetch: recordingFetch });
    const client = new Client({ name: 'sdk-e2e', version: '1.0.0' });
    await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);

    // Registration was answered by the gateway for the provider.
    expect(oauth.info?.client_id).toBe(clientId);
    const authorizeUrl = oauth.authorizationUrl!;
    expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(
      `${gw.origin}/.well-known/oauth-authorization-server/authorize`,
    );
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizeUrl.searchParams.get('resource')).toBe(mcpUrl);

    const code = await userAuthorizes(authorizeUrl, redirectUrl);
    await first.finishAuth(code);
    expect(oauth.saved?.access_token).toBeTruthy();

    const second = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth, fetch: recordingFetch });
    const authed = new Client({ name: 'sdk-e2e', version: '1.0.0' });
    await authed.connect(second);
    const result = await authed.callTool({ name: 'echo', arguments: { text: 'through the gateway' } });
    expect(result.content).toEqual([{ type: 'text', text: 'through the gateway' }]);
    await authed.close();

    // The provider saw neither `resource` on authorize nor on token, and the token request carried the secret.
    const tokenCall = gw.upstream.find((u) => u.url.endsWith(`/${tenant}/oauth2/v2.0/token`));
    const form = new URLSearchParams(tokenCall?.body ?? '');
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.has('resource')).toBe(false);
    expect(form.get('client_secret')).toBe(secret);
    expect(login.hits.some((h) => h.startsWith(`GET /${tenant}/oauth2/v2.0/authorize`))).toBe(true);
    // Keys came from the default IdpF key URL derived from the issuer.
    expect(gw.upstream.map((u) => u.url)).toContain(`${login.origin}/${tenant}/discovery/v2.0/keys`);
  });

  it('never shows the client secret in any response the client saw or any log line', () => {
    expect(seen.length).toBeGreaterThan(5);
    for (const text of [...seen, ...gw.logs]) expect(text).not.toContain(secret);
    expect(gw.logs.length).toBeGreaterThan(0);
  });
});

describe('IdpF gateway endpoints', () => {
  beforeAll(configureV2);

  it('serves the tenant v2.0 discovery as authorization-server metadata with S256 and gateway-proxied endpoints', async () => {
    const doc = (await (await fetch(`${gw.origin}/.well-known/oauth-authorization-server/mcp`)).json()) as Record<
      string,
      unknown
    >;
    expect(doc).toMatchObject({
      issuer: login.issuer,
      authorization_endpoint: `${gw.origin}/.well-known/oauth-authorization-server/authorize`,
      token_endpoint: `${gw.origin}/.well-known/oauth-authorization-server/token`,
      registration_endpoint: `${gw.origin}/.well-known/oauth-authorization-server/client-registration`,
      code_challenge_methods_supported: ['S256'],
      jwks_uri: `${login.origin}/${tenant}/discovery/v2.0/keys`,
    });
    expect(gw.upstream.map((u) => u.url)).toContain(`${login.origin}/${tenant}/v2.0/.well-known/openid-configuration`);
  });

  it('redirects authorize to the provider without the resource parameter', async () => {
    const res = await fetch(
      `${gw.origin}/.well-known/oauth-authorization-server/authorize?client_id=${clientId}&response_type=code&resource=${encodeURIComponent(mcpUrl)}&state=s1`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin + to.pathname).toBe(`${login.origin}/${tenant}/oauth2/v2.0/authorize`);
    expect(to.searchParams.has('resource')).toBe(false);
    expect(to.searchParams.get('state')).toBe('s1');
  });

  const tokenCases: Array<{
    name: string;
    form: Record<string, string>;
    headers?: Record<string, string>;
    secretAttached: boolean;
    secretValue?: string;
  }> = [
    {
      name: 'a refresh_token request for the configured client',
      form: { grant_type: 'refresh_token', client_id: clientId, refresh_token: 'r1' },
      secretAttached: true,
    },
    {
      name: 'a client_credentials request',
      form: { grant_type: 'client_credentials', client_id: clientId },
      secretAttached: false,
    },
    {
      name: 'an authorization_code request for another client',
      form: { grant_type: 'authorization_code', client_id: 'other', code: 'c' },
      secretAttached: false,
    },
    {
      name: 'a request with its own client_secret',
      form: { grant_type: 'authorization_code', client_id: clientId, code: 'c', client_secret: 'theirs' },
      secretAttached: false,
      secretValue: 'theirs',
    },
    {
      name: 'a request with HTTP Basic client authentication',
      form: { grant_type: 'authorization_code', client_id: clientId, code: 'c' },
      headers: { authorization: `Basic ${Buffer.from('app-client:theirs').toString('base64')}` },
      secretAttached: false,
    },
  ];
  for (const c of tokenCases) {
    it(`attaches the client secret only when due: ${c.name}`, async () => {
      const before = gw.upstream.length;
      const res = await fetch(`${gw.origin}/.well-known/oauth-authorization-server/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...c.headers },
        body: new URLSearchParams({ ...c.form, resource: mcpUrl }).toString(),
      });
      const text = await res.text();
      expect(text).not.toContain(secret);
      const sent = gw.upstream.slice(before).find((u) => u.url.endsWith('/oauth2/v2.0/token'));
      const form = new URLSearchParams(sent?.body ?? '');
      expect(form.has('resource')).toBe(false);
      expect(form.get('client_secret')).toBe(c.secretAttached ? secret : (c.secretValue ?? null));
    });
  }

  it('answers registration with the configured clientId and never calls the provider', async () => {
    const before = login.hits.length;
    const res = await fetch(`${gw.origin}/.well-known/oauth-authorization-server/client-registration`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'IDE',
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ client_id: clientId, token_endpoint_auth_method: 'none' });
    expect(login.hits.length).toBe(before);
  });

  it('accepts a v2 client-credentials token whose audience is the bare client id', async () => {
    // The seed's by-hand request shape: audience and the `.default` style scope.
    const r = await clientCredentials(login, { audience: `api://${clientId}` });
    expect(r.status).toBe(200);
    const res = await mcpPost(r.body.access_token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(res.status).toBe(200);
  });
});

describe('IdpF confidential registration', () => {
  const redeem = async () => {
    const res = await fetch(`${gw.origin}/.well-known/oauth-authorization-server/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: 'not-a-real-code',
        code_verifier: 'v'.repeat(43),
        redirect_uri: redirectUrl,
      }).toString(),
    });
    return { status: res.status, body: (await res.json()) as { error?: string } };
  };

  it('is refused client authentication by the provider unless the gateway injects the secret', async () => {
    gw.configure({
      mode: 'strict',
      issuer: login.issuer,
      provider: 'idpf',
      clientId,
      resourceMetadata: { resource: mcpUrl },
    });
    const without = await redeem();
    expect(without.body.error).toBe('invalid_client');
    configureV2();
    const withSecret = await redeem();
    // Client authentication passed; only the made-up code is refused now.
    expect(withSecret.body.error).toBe('invalid_grant');
    expect(JSON.stringify(withSecret.body)).not.toContain(secret);
  });
});

describe('IdpF v1 issuer', () => {
  beforeAll(() => {
    gw.configure({
      mode: 'strict',
      issuer: sts.issuer,
      audiences: [`api://${clientId}`, clientId],
      provider: 'idpf',
      clientId,
      jwks: `${login.origin}/${tenant}/discovery/v2.0/keys`,
      resourceMetadata: { resource: mcpUrl },
    });
  });

  it('accepts a v1 token from the token-service host, verified with the login host keys', async () => {
    const r = await clientCredentials(sts);
    expect(r.status).toBe(200);
    const res = await mcpPost(r.body.access_token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    expect(res.status).toBe(200);
  });

  it('rejects a v2 token when the configured issuer is the v1 form', async () => {
    const r = await clientCredentials(login);
    const res = await mcpPost(r.body.access_token, '{}');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: 'invalid_token',
      error_description: 'The access token was not issued by the accepted issuer',
    });
  });
});
