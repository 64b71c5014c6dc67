// The verified-token cache: bounded, and never a way around expiry.
import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTVerifyGetKey } from 'jose';
import { createTokenVerifier } from '../../../src/proxy/auth/token-verifier.js';

describe('token cache', () => {
  it('evicts the oldest verified token once the cache is full, so it is verified again', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const local = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] });
    let lookups = 0;
    const keys: JWTVerifyGetKey = (h, t) => {
      lookups++;
      return local(h, t);
    };
    const now = Date.now();
    const verify = createTokenVerifier({ issuer: 'https://i.example', keys, now: () => now, cacheSize: 2 });
    const tokens = await Promise.all(
      ['a', 'b', 'c'].map((sub) =>
        new SignJWT({ sub })
          .setProtectedHeader({ alg: 'ES256', kid: 'k' })
          .setIssuer('https://i.example')
          .setExpirationTime(Math.floor(now / 1000) + 60)
          .sign(privateKey),
      ),
    );
    for (const t of tokens) expect((await verify(t)).ok).toBe(true);
    expect(lookups).toBe(3);
    await verify(tokens[2]!);
    await verify(tokens[1]!);
    expect(lookups).toBe(3);
    await verify(tokens[0]!);
    expect(lookups).toBe(4);
  });
});
