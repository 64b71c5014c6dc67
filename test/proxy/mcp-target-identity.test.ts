// A per-request identity on an MCP target (`spec.mcp.targets[].static.policies.auth.oauthTokenExchange`,
// `crossAppAccess`, `jwtSign`), through the same code as HTTP edges: the client's validated token is exchanged at
// a real oidc-provider (token-exchange grant registered through its extension point; for cross-app access an
// ID-JAG there, then an access token at a second provider), or the gateway signs its own JWT with the key from
// a Secret, and every request the SDK fixture server receives for the session carries that token, never the
// client's. An exchange that fails answers the client and the target is never called.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { importSPKI, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { startSseFixture, type SseFixture } from '../fixtures/mcp-sse-server.js';
import {
  crossAppAccessYaml,
  EXCHANGE_BASIC_SECRET,
  EXCHANGE_RAS_SECRET,
  ID_JAG_TYPE,
  JWT_BEARER,
  TOKEN_EXCHANGE,
  startExchangeServer,
  type ExchangeServer,
} from '../support/oidc/token-exchange.js';
import { connectClient, textOf } from './harness.js';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { explainedAndStatuses } from './secret-surfaces.js';
import { GATEWAY_WEB, httpRoute, routeTrafficPolicy, translatedIr } from './translated-ir.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const signerPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();

function manifests(x: ExchangeServer, port: number, ssePort: number): string {
  const basic = 'clientAuth: {clientId: gw-basic, secretRef: {name: as-basic}}';
  const exchange = (url: string) =>
    `oauthTokenExchange: {url: "${url}", path: /as/token, audiences: [tools], ${basic}}`;
  const sse = { port: ssePort, path: '/sse', protocol: 'SSE' };
  const userJwt = `{jwtAuthentication: {providers: [{issuer: "${x.userIssuer}", jwks: {inline: ${JSON.stringify(JSON.stringify(x.userJwks))}}}]}}`;
  const tools = (
    name: string,
    auth: string,
    t: { port: number; path: string; protocol?: string } = { port, path: '/mcp' },
  ): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    targets:
    - name: t
      static:
        host: 127.0.0.1
        port: ${t.port}
        path: ${t.path}
        ${t.protocol ? `protocol: ${t.protocol}` : ''}
        policies: {auth: {${auth}}}
${httpRoute(name)}${routeTrafficPolicy(`${name}-jwt`, userJwt, name)}`;
  return `${GATEWAY_WEB}---
apiVersion: v1
kind: Secret
metadata: {name: as-basic, namespace: default}
data: {clientSecret: ${b64(EXCHANGE_BASIC_SECRET)}}
---
apiVersion: v1
kind: Secret
metadata: {name: ras-client, namespace: default}
data: {clientSecret: ${b64(EXCHANGE_RAS_SECRET)}}
---
apiVersion: v1
kind: Secret
metadata: {name: signer, namespace: default}
data: {signingKey: ${b64(signerPem)}}
${tools('tools', exchange(x.as.origin))}${tools('down', exchange('http://127.0.0.1:1'))}${tools(
    'xaa',
    crossAppAccessYaml(x),
  )}${tools('signed', 'jwtSign: {signingKeyRef: {name: signer}, kid: k-mcp, claims: {iss: gw, aud: tools}}')}${tools(
    'sse',
    exchange(x.as.origin),
    sse,
  )}${tools('sseq', 'jwtSign: {signingKeyRef: {name: signer}, location: {queryParameter: {name: access_token}}}', sse)}${tools(
    'httpq',
    `oauthTokenExchange: {url: "${x.as.origin}", path: /as/token, audiences: [tools], ${basic}, location: {queryParameter: {name: token}}}`,
  )}`;
}

describe('backend identities on MCP targets', () => {
  const ports = (): [number, number] => [Number(new URL(fixture.url).port), Number(new URL(sseFixture.url).port)];
  let x: ExchangeServer;
  let fixture: HttpFixture;
  let sseFixture: SseFixture;
  let runtime: ProxyRuntime;
  let base: string;
  const logged: string[] = [];
  /** JWTs the gateway signed and sent targets: never in a log either. */
  const minted: string[] = [];

  beforeAll(async () => {
    x = await startExchangeServer(undefined, { crossApp: true });
    fixture = await startHttpFixture({ id: 'exchanged' });
    sseFixture = await startSseFixture('legacy');
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    runtime = new ProxyRuntime({ log: pino({ level: 'debug' }, sink), security: createRouteSecurity() });
    await runtime.apply(translatedIr(manifests(x, ...ports())));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await fixture?.close();
    await sseFixture?.close();
    await x?.close();
  });

  it("sends the target the exchanged token on every request of the session, never the client's", async () => {
    const alice = await x.userToken('alice');
    const before = x.grants.issued.length;
    const seenBefore = fixture.headers.length;
    const { client } = await connectClient(`${base}/tools`, {}, { authorization: `Bearer ${alice}` });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('exchanged:hi');
      await client.listTools();
    } finally {
      await client.close();
    }
    const issued = x.grants.issued.slice(before);
    // One exchange for the session: later requests of the same subject are served from the cache.
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ grant: TOKEN_EXCHANGE, clientId: 'gw-basic', sub: 'alice', audience: ['tools'] });
    const seen = fixture.headers.slice(seenBefore);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const h of seen) expect(h.authorization).toBe(`Bearer ${issued[0]?.token}`);
    expect(JSON.stringify(seen)).not.toContain(alice);
  });

  it('obtains the token for each client: a second subject gets its own', async () => {
    const bob = await x.userToken('bob');
    const before = x.grants.issued.length;
    const seenBefore = fixture.headers.length;
    const { client } = await connectClient(`${base}/tools`, {}, { authorization: `Bearer ${bob}` });
    try {
      await client.callTool({ name: 'echo', arguments: { text: 'b' } });
    } finally {
      await client.close();
    }
    const issued = x.grants.issued.slice(before);
    expect(issued.map((i) => i.sub)).toEqual(['bob']);
    for (const h of fixture.headers.slice(seenBefore)) expect(h.authorization).toBe(`Bearer ${issued[0]?.token}`);
  });

  /** Every request of one MCP session through `path` (initialize, a tool call, tools/list): what the target saw. */
  const session = async (path: string, token: string) => {
    const seenBefore = fixture.headers.length;
    const { client } = await connectClient(`${base}${path}`, {}, { authorization: `Bearer ${token}` });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('exchanged:x');
      await client.listTools();
    } finally {
      await client.close();
    }
    const seen = fixture.headers.slice(seenBefore);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(seen)).not.toContain(token);
    return seen;
  };

  it('sends the target the access token of cross-app access (ID-JAG, then jwt-bearer) on every request', async () => {
    const mia = await x.userToken('mia');
    const before = x.grants.issued.length;
    const rasBefore = x.ras?.grants.issued.length ?? 0;
    const seen = await session('/xaa', mia);
    const atIdp = x.grants.issued.slice(before);
    expect(atIdp).toHaveLength(1);
    expect(atIdp[0]).toMatchObject({ grant: TOKEN_EXCHANGE, clientId: 'gw-basic', sub: 'mia' });
    expect(atIdp[0]?.params.requested_token_type).toBe(ID_JAG_TYPE);
    const atRas = x.ras?.grants.issued.slice(rasBefore) ?? [];
    expect(atRas).toHaveLength(1);
    expect(atRas[0]).toMatchObject({ grant: JWT_BEARER, clientId: 'gw-at-ras', sub: 'mia' });
    expect(atRas[0]?.params.assertion).toBe(atIdp[0]?.token);
    for (const h of seen) expect(h.authorization).toBe(`Bearer ${atRas[0]?.token}`);
  });

  it('sends the target a JWT the gateway signed with the key from the Secret, with its kid and claims', async () => {
    const seen = await session('/signed', await x.userToken('nina'));
    const jwt = String(seen[0]?.authorization).replace(/^Bearer /, '');
    minted.push(jwt);
    const publicPem = createPublicKey(signerPem).export({ type: 'spki', format: 'pem' }).toString();
    const { payload, protectedHeader } = await jwtVerify(jwt, await importSPKI(publicPem, 'RS256'));
    expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: 'k-mcp' });
    expect(payload).toMatchObject({ iss: 'gw', aud: 'tools' });
    for (const h of seen) expect(h.authorization).toBe(`Bearer ${jwt}`);
  });

  /** One MCP session through `path` (a tool call and tools/list) with the client's `token`, answered by the SSE fixture. */
  const sseSession = async (path: string, token: string) => {
    const seenBefore = sseFixture.requests.length;
    const { client } = await connectClient(`${base}${path}`, {}, { authorization: `Bearer ${token}` });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 's' } }))).toBe('legacy:s');
      await client.listTools();
    } finally {
      await client.close();
    }
    const seen = sseFixture.requests.slice(seenBefore);
    // The SSE GET, then initialize, notifications/initialized, the call and tools/list on the message endpoint.
    expect(seen.filter((r) => r.method === 'GET')).toHaveLength(1);
    expect(seen.filter((r) => r.method === 'POST').length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(seen)).not.toContain(token);
    return seen;
  };

  it('sends a legacy SSE target the exchanged token on the SSE GET and on every POST to its message endpoint', async () => {
    const olga = await x.userToken('olga');
    const before = x.grants.issued.length;
    const seen = await sseSession('/sse', olga);
    const issued = x.grants.issued.slice(before);
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ grant: TOKEN_EXCHANGE, sub: 'olga' });
    for (const r of seen) expect(r.headers.authorization).toBe(`Bearer ${issued[0]?.token}`);
  });

  it('adds a queryParameter identity to the SSE URL and to the message endpoint URL the target announced', async () => {
    const seen = await sseSession('/sseq', await x.userToken('pia'));
    const urls = seen.map((r) => new URL(r.url, 'http://target'));
    const jwt = urls[0]?.searchParams.get('access_token') ?? '';
    minted.push(jwt);
    const publicPem = createPublicKey(signerPem).export({ type: 'spki', format: 'pem' }).toString();
    await jwtVerify(jwt, await importSPKI(publicPem, 'RS256'));
    expect(urls[0]?.pathname).toBe('/sse');
    for (const u of urls.slice(1)) {
      expect(u.pathname).toBe('/messages');
      expect(u.searchParams.get('sessionId')).toBeTruthy();
      expect(u.searchParams.get('access_token')).toBe(jwt);
    }
    for (const r of seen) expect(r.headers.authorization).toBeUndefined();
  });

  it('adds a queryParameter identity to every request to a streamable-HTTP target', async () => {
    const before = x.grants.issued.length;
    const urlsBefore = fixture.requests.length;
    await session('/httpq', await x.userToken('quinn'));
    const issued = x.grants.issued.slice(before);
    expect(issued).toHaveLength(1);
    const sent = fixture.requests.slice(urlsBefore);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const r of sent) {
      const u = new URL(r.url, 'http://target');
      expect(u.pathname).toBe('/mcp');
      expect(u.searchParams.get('token')).toBe(issued[0]?.token);
    }
    for (const h of fixture.headers.slice(urlsBefore)) expect(h.authorization).toBeUndefined();
  });

  it('answers 502 when the token endpoint cannot be reached, and the target is never called', async () => {
    const carol = await x.userToken('carol');
    const seenBefore = fixture.headers.length;
    const res = await fetch(`${base}/down`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${carol}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const text = await res.text();
    expect(res.status).toBe(502);
    expect(JSON.parse(text)).toMatchObject({ error: 'credential_unavailable' });
    expect(text).not.toContain(carol);
    expect(fixture.headers.length).toBe(seenBefore);
  });

  it('never shows a secret, a key or a token in logs, gw explain, statuses or metrics', async () => {
    const issued = [...x.grants.issued, ...(x.ras?.grants.issued ?? [])];
    const tokens = issued.flatMap((i) =>
      [i.token, i.params.subject_token, i.params.assertion].filter(
        (t): t is string => typeof t === 'string' && t !== '',
      ),
    );
    expect(tokens.length).toBeGreaterThan(issued.length);
    const { explained, statuses } = explainedAndStatuses(manifests(x, ...ports()), [
      'tools',
      'down',
      'xaa',
      'signed',
      'sse',
      'sseq',
      'httpq',
    ]);
    expect(explained).toContain('crossAppAccess');
    const metrics = await runtime.metrics.registry.metrics();
    expect(metrics).toMatch(/gw_http_requests_total\{[^}]*\} [1-9]/);
    expect(logged.length).toBeGreaterThan(0);
    const text = [...logged, explained, statuses, metrics].join('\n');
    expect(minted).toHaveLength(2);
    for (const s of [...tokens, ...minted, EXCHANGE_BASIC_SECRET, EXCHANGE_RAS_SECRET, signerPem.split('\n')[1] ?? ''])
      expect(text).not.toContain(s);
  });
});
