// The verified-token cache: bounded, and never a way around expiry.
import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTVerifyGetKey } from 'jose';
import { createTokenVerifier } from '../../../src/proxy/auth/token-verifier.js';

/** An ES256 key, a key source counting its lookups (one per full verification), and a signer. */
async function issuer() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const local = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] });
  const counted = { lookups: 0 };
  const keys: JWTVerifyGetKey = (h, t) => {
    counted.lookups++;
    return local(h, t);
  };
  const sign = (sub: string, exp: number) =>
    new SignJWT({ sub })
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .setIssuer('https://i.example')
      .setExpirationTime(exp)
      .sign(privateKey);
  return { keys, counted, sign };
}

describe('token cache', () => {
  it('evicts the oldest verified token once the cache is full, so it is verified again', async () => {
    const { keys, counted, sign } = await issuer();
    const now = Date.now();
    const verify = createTokenVerifier({ issuer: 'https://i.example', keys, now: () => now, cacheSize: 2 });
    const tokens = await Promise.all(['a', 'b', 'c'].map((sub) => sign(sub, Math.floor(now / 1000) + 60)));
    for (const t of tokens) expect((await verify(t)).ok).toBe(true);
    expect(counted.lookups).toBe(3);
    await verify(tokens[2]!);
    await verify(tokens[1]!);
    expect(counted.lookups).toBe(3);
    await verify(tokens[0]!);
    expect(counted.lookups).toBe(4);
  });

  it('answers a token verified before without a promise, on the same connection without a cache lookup', async () => {
    const { keys, counted, sign } = await issuer();
    let now = Date.now();
    const verify = createTokenVerifier({ issuer: 'https://i.example', keys, now: () => now });
    const exp = Math.floor(now / 1000) + 60;
    const [a, b] = await Promise.all([sign('a', exp), sign('b', exp)]);
    const conn = {};
    const first = verify(a, conn);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ ok: true, claims: { sub: 'a' } });
    // A copy of the string, as a new request parses it: equal text, not the same string object.
    const again = verify(`${a} `.trim(), conn);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toMatchObject({ ok: true, claims: { sub: 'a' } });
    // Another token on that connection is its own check, and gets its own claims.
    expect(await verify(b, conn)).toMatchObject({ ok: true, claims: { sub: 'b' } });
    expect(verify(a, {})).toMatchObject({ ok: true, claims: { sub: 'a' } });
    expect(counted.lookups).toBe(2);
    // Past exp (and the 30 s skew), neither the connection's memo nor the cache answers: it is verified, and refused.
    now += 120_000;
    const late = verify(a, conn);
    expect(late).toBeInstanceOf(Promise);
    expect(await late).toMatchObject({ ok: false, description: 'The access token expired' });
    expect(verify.cached(b, conn)).toBeUndefined();
  });
});
