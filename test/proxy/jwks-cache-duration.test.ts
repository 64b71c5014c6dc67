// GwPolicy jwtAuthentication.providers[].jwks.remote.cacheDuration: fetched signing keys are refetched on
// first use once older than the duration (translated from manifests, served by a real runtime; the JWKS
// server counts its fetches per route). Without the field the keys stay cached (the 5-minute default).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthBench, type AuthBench } from './http-auth-harness.js';

const iss = 'https://a.example';

describe('jwks.remote.cacheDuration', () => {
  let bench: AuthBench;
  let jwks: Server;
  let key: CryptoKey;
  const fetches: Record<string, number> = {};
  /** The proxy's clock for token and key expiry, moved by the test. */
  let now = Date.now();

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey;
    const pub = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    jwks = createServer((req, res) => {
      fetches[req.url ?? ''] = (fetches[req.url ?? ''] ?? 0) + 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [pub] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
    const provider = (path: string, cache?: string) =>
      `{issuer: "${iss}", jwks: {remote: {url: "${base}${path}"${cache ? `, cacheDuration: ${cache}` : ''}}}}`;
    bench = await startAuthBench(
      [
        { name: 'short', traffic: `{jwtAuthentication: {providers: [${provider('/short', '1s')}]}}` },
        { name: 'default', traffic: `{jwtAuthentication: {providers: [${provider('/default')}]}}` },
      ],
      '',
      { authClock: () => now },
    );
  });

  afterAll(async () => {
    await bench?.close();
    await new Promise<void>((resolve) => {
      jwks?.close(() => resolve());
      jwks?.closeAllConnections();
    });
  });

  it('refetches the keys once they are older than cacheDuration, and keeps them cached without it', async () => {
    // A new token per call: verified tokens are cached until they expire, so each call needs the keys.
    let n = 0;
    const call = async (route: string) => {
      const token = await new SignJWT({ iss, sub: `user-${n++}` })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key);
      return (await bench.get(`/${route}/x`, { authorization: `Bearer ${token}` })).status;
    };
    expect([await call('short'), await call('default')]).toEqual([200, 200]);
    expect([await call('short'), await call('default')]).toEqual([200, 200]);
    expect(fetches).toEqual({ '/short': 1, '/default': 1 });
    now += 1_000; // exactly the duration: still fresh
    expect([await call('short'), await call('default')]).toEqual([200, 200]);
    expect(fetches).toEqual({ '/short': 1, '/default': 1 });
    now += 1; // older than the duration: refetched on first use
    expect([await call('short'), await call('default')]).toEqual([200, 200]);
    expect(fetches).toEqual({ '/short': 2, '/default': 1 });
  });
});
