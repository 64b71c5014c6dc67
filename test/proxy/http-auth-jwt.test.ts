// GwPolicy traffic.jwtAuthentication (without mcp) and traffic.authorization on forwarded HTTP routes:
// translated from manifests, served by a real runtime to a real node:http upstream, with ES256 tokens
// signed by jose and keys served from a loopback JWKS server (provider a) or inline (provider b).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seen, startAuthBench, type AuthBench } from './http-auth-harness.js';

const issA = 'https://a.example';
const issB = 'https://b.example';

describe('JWT authentication and CEL authorization on forwarded HTTP routes', () => {
  let bench: AuthBench;
  let jwks: Server;
  let keyA: CryptoKey;
  let keyB: CryptoKey;
  let other: CryptoKey;

  const sign = (key: CryptoKey, kid: string, claims: Record<string, unknown>, exp = '5m'): Promise<string> =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid }).setIssuedAt().setExpirationTime(exp).sign(key);
  const get = (path: string, headers: Record<string, string> = {}) => bench.get(path, headers);

  beforeAll(async () => {
    const a = await generateKeyPair('ES256');
    const b = await generateKeyPair('ES256');
    const o = await generateKeyPair('ES256');
    keyA = a.privateKey;
    keyB = b.privateKey;
    other = o.privateKey;
    const publicA: JWK = { ...(await exportJWK(a.publicKey)), kid: 'a1', alg: 'ES256', use: 'sig' };
    const publicB: JWK = { ...(await exportJWK(b.publicKey)), kid: 'b1', alg: 'ES256', use: 'sig' };
    jwks = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicA] })),
    );
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
    const inlineB = JSON.stringify(JSON.stringify({ keys: [publicB] }));
    const provA = `{issuer: "${issA}", audiences: [api], jwks: {remote: {url: "${jwksUrl}"}}}`;
    const provB = `{issuer: "${issB}", jwks: {inline: ${inlineB}}}`;
    bench = await startAuthBench([
      { name: 'strict', traffic: `{jwtAuthentication: {providers: [${provA}, ${provB}]}}` },
      { name: 'optional', traffic: `{jwtAuthentication: {mode: Optional, providers: [${provA}]}}` },
      { name: 'permissive', traffic: `{jwtAuthentication: {mode: Permissive, providers: [${provA}]}}` },
      { name: 'preserve', traffic: `{jwtAuthentication: {preserveToken: true, providers: [${provA}]}}` },
      {
        name: 'query',
        traffic: `{jwtAuthentication: {location: {queryParameter: {name: access_token}}, providers: [${provA}]}}`,
      },
      { name: 'cookie', traffic: `{jwtAuthentication: {location: {cookie: {name: session}}, providers: [${provA}]}}` },
      {
        name: 'custom',
        traffic: `{jwtAuthentication: {location: {header: {name: X-Token, prefix: "Token "}}, providers: [${provA}]}}`,
      },
      {
        name: 'badkeys',
        traffic: `{jwtAuthentication: {providers: [{issuer: "${issB}", jwks: {inline: "not json"}}]}}`,
      },
      {
        name: 'celloc',
        traffic: `{jwtAuthentication: {location: {expression: 'request.headers["x-t"]'}, providers: [${provA}]}}`,
      },
      {
        name: 'authz',
        traffic: `{jwtAuthentication: {providers: [${provA}]}, authorization: {policy: {matchExpressions: ['jwt.sub == "alice" && request.method == "GET"']}}}`,
      },
      {
        name: 'deny',
        traffic: `{authorization: {action: Deny, policy: {matchExpressions: ['request.path.startsWith("/deny/admin")']}}}`,
      },
    ]);
  });

  afterAll(async () => {
    await bench?.close();
    await new Promise<void>((resolve) => {
      jwks?.close(() => resolve());
      jwks?.closeAllConnections();
    });
  });

  it('answers 401 with a Bearer challenge and never forwards when a strict route gets no token', async () => {
    const before = bench.hits();
    const res = await get('/strict/x');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.headers['www-authenticate']).not.toContain('resource_metadata');
    expect(JSON.parse(res.body)).toEqual({ error: 'unauthorized', error_description: 'JWT token required' });
    expect(bench.hits()).toBe(before);
  });

  it('forwards a valid token of the remote-JWKS provider and strips it from the forwarded request', async () => {
    const res = await get('/strict/x', {
      authorization: `Bearer ${await sign(keyA, 'a1', { iss: issA, aud: 'api', sub: 'alice' })}`,
    });
    expect(res.status).toBe(200);
    expect(seen(res).headers.authorization).toBeUndefined();
  });

  it('picks the provider by the token issuer: an inline-JWKS provider accepts its own tokens', async () => {
    const res = await get('/strict/x', {
      authorization: `Bearer ${await sign(keyB, 'b1', { iss: issB, sub: 'bob' })}`,
    });
    expect(res.status).toBe(200);
  });

  it.each([
    [
      'a wrong audience',
      async () => sign(keyA, 'a1', { iss: issA, aud: 'other' }),
      'The access token is not intended for this resource',
    ],
    [
      'an unknown issuer',
      async () => sign(keyA, 'a1', { iss: 'https://evil.example', aud: 'api' }),
      'The access token was not issued by an accepted issuer',
    ],
    [
      'a foreign signing key',
      async () => sign(other, 'a1', { iss: issA, aud: 'api' }),
      'The access token signature is invalid',
    ],
    ['an expired token', async () => sign(keyA, 'a1', { iss: issA, aud: 'api' }, '-5m'), 'The access token expired'],
    ['garbage', () => Promise.resolve('not-a-jwt'), 'The access token is malformed'],
  ])('answers 401 invalid_token for %s', async (_what, token, description) => {
    const before = bench.hits();
    const res = await get('/strict/x', { authorization: `Bearer ${await token()}` });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ error: 'invalid_token', error_description: description });
    expect(res.headers['www-authenticate']).toBe(`Bearer error="invalid_token", error_description="${description}"`);
    expect(bench.hits()).toBe(before);
  });

  it('lets an optional route pass without a token but rejects an invalid one', async () => {
    expect((await get('/optional/x')).status).toBe(200);
    expect((await get('/optional/x', { authorization: 'Bearer not-a-jwt' })).status).toBe(401);
  });

  it('never rejects on a permissive route', async () => {
    expect((await get('/permissive/x')).status).toBe(200);
    const invalid = await get('/permissive/x', { authorization: 'Bearer not-a-jwt' });
    expect(invalid.status).toBe(200);
    expect(seen(invalid).headers.authorization).toBeUndefined();
  });

  it('keeps the token in the forwarded request when preserveToken is true', async () => {
    const token = await sign(keyA, 'a1', { iss: issA, aud: 'api' });
    const res = await get('/preserve/x', { authorization: `Bearer ${token}` });
    expect(seen(res).headers.authorization).toBe(`Bearer ${token}`);
  });

  it('reads the token from a query parameter and removes only that parameter', async () => {
    const token = await sign(keyA, 'a1', { iss: issA, aud: 'api' });
    expect((await get('/query/x?a=1')).status).toBe(401);
    const res = await get(`/query/x?a=1&access_token=${token}&b=2`);
    expect(res.status).toBe(200);
    expect(seen(res).url).toBe('/query/x?a=1&b=2');
  });

  it('reads the token from a cookie and forwards the other cookies', async () => {
    const token = await sign(keyA, 'a1', { iss: issA, aud: 'api' });
    const res = await get('/cookie/x', { cookie: `theme=dark; session=${token}` });
    expect(res.status).toBe(200);
    expect(seen(res).headers.cookie).toBe('theme=dark');
    expect((await get('/cookie/x', { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('reads the token from a custom header after its prefix', async () => {
    const token = await sign(keyA, 'a1', { iss: issA, aud: 'api' });
    expect((await get('/custom/x', { 'x-token': `Token ${token}` })).status).toBe(200);
    expect((await get('/custom/x', { 'x-token': `Bearer ${token}` })).status).toBe(401);
  });

  it('refuses only the route whose inline key set is not a JWKS, with 503, while other routes keep working', async () => {
    const res = await get('/badkeys/x', { authorization: `Bearer ${await sign(keyB, 'b1', { iss: issB })}` });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body).error).toBe('policy_not_enforced');
    expect((await get('/permissive/x')).status).toBe(200);
  });

  it('reads the token where a CEL location expression says (http-auth-cel-location.test.ts has the rest)', async () => {
    const res = await get('/celloc/x', { 'x-t': await sign(keyA, 'a1', { iss: issA, aud: 'api' }) });
    expect(res.status).toBe(200);
  });

  it('feeds verified claims and the request to CEL authorization: 403 when no rule allows', async () => {
    const alice = await sign(keyA, 'a1', { iss: issA, aud: 'api', sub: 'alice' });
    const mallory = await sign(keyA, 'a1', { iss: issA, aud: 'api', sub: 'mallory' });
    expect((await get('/authz/x', { authorization: `Bearer ${alice}` })).status).toBe(200);
    const denied = await get('/authz/x', { authorization: `Bearer ${mallory}` });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body)).toMatchObject({ error: 'forbidden' });
    const post = await bench.post('/authz/x', { authorization: `Bearer ${alice}` }, 'x');
    expect(post.status).toBe(403);
  });

  it('enforces a Deny authorization rule on a route without authentication', async () => {
    expect((await get('/deny/public')).status).toBe(200);
    expect((await get('/deny/admin/users')).status).toBe(403);
  });

  it('never writes a token into logs or error bodies', async () => {
    const token = await sign(other, 'a1', { iss: issA, aud: 'api', sub: 'secret-subject' });
    await get('/strict/x', { authorization: `Bearer ${token}` });
    const signature = token.split('.')[2] ?? '';
    expect(bench.logged.join('\n')).toContain('bearer token rejected');
    for (const text of [...bench.logged, ...bench.bodies]) {
      expect(text).not.toContain(signature);
      expect(text).not.toContain('secret-subject');
    }
  });
});
