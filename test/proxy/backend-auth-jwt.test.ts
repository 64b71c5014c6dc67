// backend.auth behind route JWT authentication, translated and served by the real runtime (route
// security factory, debug logs recorded): passthrough re-sends the token the proxy validated although
// authentication removed it from the request; a key replaces it; neither ever shows in a log line.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seen, startAuthBench, type AuthBench } from './http-auth-harness.js';

const ISSUER = 'https://issuer.example';

describe('backend.auth behind JWT authentication', () => {
  let bench: AuthBench;
  let key: CryptoKey;
  const token = (): Promise<string> =>
    new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey;
    const jwks = JSON.stringify(
      JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] }),
    );
    const jwt = `{jwtAuthentication: {providers: [{issuer: "${ISSUER}", jwks: {inline: ${jwks}}}]}}`;
    // The case's GwPolicy targets its HTTPRoute; backend settings there apply to the route's edges.
    bench = await startAuthBench([
      { name: 'pass', traffic: `${jwt}\n  backend: {auth: {passthrough: {}}}` },
      { name: 'keyed', traffic: `${jwt}\n  backend: {auth: {key: upstream-bench-key}}` },
      { name: 'stripped', traffic: jwt },
    ]);
  });

  afterAll(async () => {
    await bench?.close();
  });

  it('passes the validated client token upstream although authentication removed it from the request', async () => {
    const t = await token();
    expect(seen(await bench.get('/pass/x', { authorization: `Bearer ${t}` })).headers.authorization).toBe(
      `Bearer ${t}`,
    );
    // Without backend.auth, JWT authentication keeps the token from the backend, as before.
    expect(
      seen(await bench.get('/stripped/x', { authorization: `Bearer ${t}` })).headers.authorization,
    ).toBeUndefined();
  });

  it('never forwards a request whose token fails authentication', async () => {
    const before = bench.hits();
    const res = await bench.get('/pass/x', { authorization: 'Bearer not-a-jwt' });
    expect(res.status).toBe(401);
    expect(bench.hits()).toBe(before);
  });

  it('replaces the client token with the key and logs neither', async () => {
    const t = await token();
    expect(seen(await bench.get('/keyed/x', { authorization: `Bearer ${t}` })).headers.authorization).toBe(
      'Bearer upstream-bench-key',
    );
    expect(bench.logged.join('')).not.toContain('upstream-bench-key');
    expect(bench.logged.join('')).not.toContain(t);
  });
});
