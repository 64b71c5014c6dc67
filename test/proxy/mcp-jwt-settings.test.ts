// GwPolicy traffic.jwtAuthentication with `mcp` on an MCP route honours what the generic form does: every
// provider is tried, `location` says where the token is read, and the token never reaches the MCP target
// (preserveToken: true is refused on MCP routes with and without `mcp`, since targets never get the client
// token). Translated from manifests, served by a real runtime, a real streamable-HTTP target, real JWTs.
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { makeSigningKey } from '../support/oidc/provider.js';
import { mcpBackendManifest, trafficManifests } from './traffic-manifests.js';
import { translatedIr } from './translated-ir.js';

const issuerA = 'https://a.example';
const issuerB = 'https://b.example';
type Sign = (iss: string) => Promise<string>;

async function signer(kid: string): Promise<{ jwks: string; sign: Sign }> {
  const key = await makeSigningKey(kid);
  const privateKey = (await importJWK(key.privateJwk, 'RS256')) as CryptoKey;
  const sign: Sign = (iss) =>
    new SignJWT({ sub: 'u' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(iss)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  return { jwks: JSON.stringify({ keys: [key.publicJwk] }), sign };
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

describe('jwtAuthentication with mcp on MCP routes', () => {
  let fixture: HttpFixture;
  let runtime: ProxyRuntime;
  let base: string;
  let a: { jwks: string; sign: Sign };
  let b: { jwks: string; sign: Sign };

  beforeAll(async () => {
    [a, b] = await Promise.all([signer('ka'), signer('kb')]);
    fixture = await startHttpFixture({ id: 'jwt' });
    const port = Number(new URL(fixture.url).port);
    const providers = `[{issuer: "${issuerA}", jwks: {inline: '${a.jwks}'}}, {issuer: "${issuerB}", jwks: {inline: '${b.jwks}'}}]`;
    const mcp = `mcp: {provider: IdpA, clientId: gw, resourceMetadata: {resource: "http://gw.test/mcp"}}`;
    const cases = [
      { name: 'two', traffic: `{jwtAuthentication: {providers: ${providers}, ${mcp}}}` },
      {
        name: 'xtoken',
        traffic: `{jwtAuthentication: {providers: ${providers}, location: {header: {name: X-Token, prefix: "Token "}}, ${mcp}}}`,
      },
      {
        name: 'query',
        traffic: `{jwtAuthentication: {providers: ${providers}, location: {queryParameter: {name: access_token}}, ${mcp}}}`,
      },
      { name: 'keepmcp', traffic: `{jwtAuthentication: {providers: ${providers}, preserveToken: true, ${mcp}}}` },
      { name: 'keepjwt', traffic: `{jwtAuthentication: {providers: ${providers}, preserveToken: true}}` },
    ].map((c) => ({ ...c, backend: 'mcp' }));
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
    await runtime.apply(translatedIr(trafficManifests(1, cases, mcpBackendManifest('mcp', port))));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await fixture?.close();
  });

  const init = (path: string, headers: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: initialize,
    });

  it('accepts tokens of every provider, not only the first, and rejects other issuers with 401', async () => {
    expect((await init('/two', { authorization: `Bearer ${await a.sign(issuerA)}` })).status).toBe(200);
    expect((await init('/two', { authorization: `Bearer ${await b.sign(issuerB)}` })).status).toBe(200);
    // Signed with provider b's key but claiming a's issuer: a's keys do not verify it.
    const forged = await init('/two', { authorization: `Bearer ${await b.sign(issuerA)}` });
    expect(forged.status).toBe(401);
    const stranger = await init('/two', { authorization: `Bearer ${await a.sign('https://c.example')}` });
    expect(stranger.status).toBe(401);
    expect(stranger.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
  });

  it('reads the token where location says: a header with a prefix, or a query parameter', async () => {
    const token = await b.sign(issuerB);
    expect((await init('/xtoken', { 'x-token': `Token ${token}` })).status).toBe(200);
    const inAuthorization = await init('/xtoken', { authorization: `Bearer ${token}` });
    expect(inAuthorization.status).toBe(401);
    expect(inAuthorization.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    expect((await init(`/query?access_token=${token}`, {})).status).toBe(200);
    expect((await init('/query', { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('never hands the validated token to the MCP target', async () => {
    const token = await a.sign(issuerA);
    const before = fixture.headers.length;
    expect((await init('/two', { authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await init('/xtoken', { 'x-token': `Token ${token}` })).status).toBe(200);
    const seen = fixture.headers.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    for (const h of seen) expect(JSON.stringify(h)).not.toContain(token);
  });

  it('refuses preserveToken: true on MCP routes alike with and without mcp (503 naming the field)', async () => {
    for (const path of ['/keepmcp', '/keepjwt']) {
      const res = await init(path, { authorization: `Bearer ${await a.sign(issuerA)}` });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: string }).error).toBe('policy_not_enforced');
    }
  });
});
