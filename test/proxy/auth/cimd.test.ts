// Client ID Metadata Documents where the gateway bridges IdpF: a client whose client_id is an https URL is
// accepted at the gateway's authorize and token endpoints after its document (served over TLS on loopback,
// reachable only through the test allow-list) names itself and lists the redirect URI; the provider, a real
// oidc-provider with IdpF's shapes, sees the gateway's own client id. Driven by the MCP SDK client's OAuth flow.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { isPublicAddress } from '../../../src/proxy/net/public-address.js';
import { makeSigningKey, startIdpF, webClient, type OidcHarness } from '../../support/oidc/provider.js';
import { TestOAuthProvider, userAuthorizes } from '../../support/oidc/mcp-oauth-client.js';
import { issueLeaf, testCa } from '../../support/test-certs.js';
import { startGateway, type TestGateway } from './gateway.js';

const tenant = 'c1dc1dc1-0000-4000-8000-00000000cafe';
const clientId = 'gw-app';
const secret = 'cimd-gateway-secret~never-leaks';
const redirectUrl = 'http://127.0.0.1:9/callback';

let gw: TestGateway;
let login: OidcHarness;
let docs: Server;
let docsOrigin: string;
let ca: string;
const hits = new Map<string, number>();

/** The documents the loopback TLS server serves, by path; `self` stands for the document's own URL. */
const documents: Record<string, (self: string) => { status?: number; headers?: Record<string, string>; body: string }> =
  {
    '/clients/good.json': (self) => ({
      headers: { 'cache-control': 'max-age=300' },
      body: JSON.stringify({
        client_id: self,
        client_name: 'CIMD client',
        redirect_uris: [redirectUrl],
        token_endpoint_auth_method: 'none',
      }),
    }),
    '/clients/other-id.json': () => ({
      body: JSON.stringify({ client_id: `${docsOrigin}/clients/good.json`, redirect_uris: [redirectUrl] }),
    }),
    '/clients/large.json': (self) => ({
      body: JSON.stringify({ client_id: self, redirect_uris: [redirectUrl], client_name: 'x'.repeat(6000) }),
    }),
    '/clients/secret.json': (self) => ({
      body: JSON.stringify({ client_id: self, redirect_uris: [redirectUrl], client_secret: 's' }),
    }),
    '/clients/private-key.json': (self) => ({
      body: JSON.stringify({
        client_id: self,
        redirect_uris: [redirectUrl],
        token_endpoint_auth_method: 'private_key_jwt',
      }),
    }),
    '/clients/moved.json': () => ({ status: 302, headers: { location: '/clients/good.json' }, body: '' }),
    '/clients/not-json.json': () => ({ body: '<html>' }),
  };

const docUrl = (name: string): string => `${docsOrigin}/clients/${name}.json`;
const allowLoopback = (address: string): boolean => address === '127.0.0.1' || isPublicAddress(address);

function configure(allowAddress = allowLoopback): void {
  gw.configure(
    {
      mode: 'strict',
      issuer: login.issuer,
      audiences: [`api://${clientId}`, clientId],
      provider: 'idpf',
      clientId,
      clientSecret: secret,
      resourceMetadata: { resource: `${gw.origin}/mcp`, scopesSupported: [`api://${clientId}/mcp.tools`] },
    },
    { metadataDocuments: { allowAddress, ca } },
  );
}

beforeAll(async () => {
  const authority = await testCa('gw CIMD test CA');
  ca = authority.caCert;
  const leaf = issueLeaf(authority, ['127.0.0.1'], 'server');
  docs = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const doc = documents[path]?.(`${docsOrigin}${path}`);
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(doc.status ?? 200, { 'content-type': 'application/json', ...doc.headers }).end(doc.body);
  });
  await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
  docsOrigin = `https://127.0.0.1:${(docs.address() as AddressInfo).port}`;
  gw = await startGateway();
  const clients = [webClient(clientId, secret, redirectUrl)];
  login = await startIdpF({ tenantId: tenant, clientId, clients, key: await makeSigningKey('cimd-key') });
});

afterAll(async () => {
  await gw?.close();
  await login?.close();
  docs?.closeAllConnections();
  await new Promise((resolve) => docs?.close(resolve));
});

class DocumentClient extends TestOAuthProvider {
  constructor(
    redirect: string,
    readonly clientMetadataUrl: string,
  ) {
    super(redirect);
  }
}

const authorize = (client: string, redirect = redirectUrl): Promise<Response> =>
  fetch(
    `${gw.origin}/.well-known/oauth-authorization-server/authorize?${new URLSearchParams({
      client_id: client,
      redirect_uri: redirect,
      response_type: 'code',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 's1',
    })}`,
    { redirect: 'manual' },
  );

describe('Client ID Metadata Documents through the IdpF bridge', () => {
  beforeAll(() => configure());

  it('advertises client_id_metadata_document_supported in the authorization-server metadata', async () => {
    const doc = (await (await fetch(`${gw.origin}/.well-known/oauth-authorization-server/mcp`)).json()) as Record<
      string,
      unknown
    >;
    expect(doc.client_id_metadata_document_supported).toBe(true);
  });

  it('runs the MCP SDK OAuth flow with a document client id, without registering, to a tool call', async () => {
    const seen: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      seen.push(`${init?.method ?? 'GET'} ${String(input instanceof Request ? input.url : input)}`);
      return fetch(input, init);
    };
    const oauth = new DocumentClient(redirectUrl, docUrl('good'));
    const mcpUrl = new URL(`${gw.origin}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth, fetch: recording });
    await expect(new Client({ name: 'cimd', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(oauth.info?.client_id).toBe(docUrl('good'));
    expect(seen.some((s) => s.includes('client-registration'))).toBe(false);
    expect(oauth.authorizationUrl?.searchParams.get('client_id')).toBe(docUrl('good'));

    // The gateway sends the browser to the provider with its own client id, never the document URL.
    const toProvider = await fetch(oauth.authorizationUrl!, { redirect: 'manual' });
    const providerUrl = new URL(toProvider.headers.get('location') ?? '');
    expect(providerUrl.origin).toBe(login.origin);
    expect(providerUrl.searchParams.get('client_id')).toBe(clientId);
    expect(providerUrl.searchParams.get('redirect_uri')).toBe(redirectUrl);
    const code = await userAuthorizes(providerUrl, redirectUrl);
    const before = gw.upstream.length;
    await first.finishAuth(code);
    expect(oauth.saved?.access_token).toBeTruthy();
    const token = new URLSearchParams(gw.upstream.slice(before).find((u) => u.url.endsWith('/token'))?.body ?? '');
    expect(token.get('client_id')).toBe(clientId);
    expect(token.get('client_secret')).toBe(secret);

    const second = new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth });
    const client = new Client({ name: 'cimd', version: '1.0.0' });
    await client.connect(second);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'by document' } });
    expect(result.content).toEqual([{ type: 'text', text: 'by document' }]);
    await client.close();
    // Fetched once over the whole flow (authorize and token): the document is cached for its max-age.
    expect(hits.get('/clients/good.json')).toBe(1);
  });

  it('refuses, without redirecting, a redirect_uri the document does not list', async () => {
    const res = await authorize(docUrl('good'), 'http://127.0.0.1:9/elsewhere');
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toEqual({
      error: 'invalid_request',
      error_description: 'client_id: redirect_uri is not listed in the client metadata document',
    });
  });

  it('refuses a repeated redirect_uri, whose second value the document never vouched for', async () => {
    const query = new URLSearchParams({ client_id: docUrl('good'), redirect_uri: redirectUrl, response_type: 'code' });
    query.append('redirect_uri', 'https://attacker.example/cb');
    const res = await fetch(`${gw.origin}/.well-known/oauth-authorization-server/authorize?${query}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_description: string }).error_description).toBe(
      'client_id: client_id and redirect_uri must not be repeated',
    );
  });

  const refused: Array<[string, string]> = [
    ['other-id', 'the client metadata document does not name its own URL as client_id'],
    ['large', 'the client metadata document is larger than 5120 bytes'],
    ['secret', 'the client metadata document must not contain a client secret'],
    ['private-key', 'only public clients (token_endpoint_auth_method none) are accepted'],
    ['moved', 'the client metadata document answered HTTP 302'],
    ['not-json', 'the client metadata document is not JSON'],
    ['missing', 'the client metadata document answered HTTP 404'],
  ];
  it.each(refused)('refuses the document %s at authorize (400) and token (401)', async (name, why) => {
    const res = await authorize(docUrl(name));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_description: string }).error_description).toBe(`client_id: ${why}`);
    const before = gw.upstream.length;
    const token = await fetch(`${gw.origin}/.well-known/oauth-authorization-server/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: docUrl(name),
        code: 'c',
        redirect_uri: redirectUrl,
      }).toString(),
    });
    expect(token.status).toBe(401);
    expect(await token.json()).toEqual({ error: 'invalid_client', error_description: `client_id: ${why}` });
    expect(gw.upstream.slice(before).some((u) => u.url.endsWith('/token'))).toBe(false);
  });

  it('refuses a document on a loopback address, by literal or by a name resolving there, without the allow-list (SSRF)', async () => {
    configure(isPublicAddress);
    try {
      // The name's check happens in the connection's own lookup: without it TLS would fail on the name instead.
      for (const url of [docUrl('good'), docUrl('good').replace('127.0.0.1', 'localhost')]) {
        const res = await authorize(url);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error_description: string }).error_description).toBe(
          'client_id: the client metadata document URL points at an address that is not public',
        );
      }
    } finally {
      configure();
    }
  });

  it('passes a plain client id through unchanged', async () => {
    const res = await authorize(clientId);
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('client_id')).toBe(clientId);
  });
});
