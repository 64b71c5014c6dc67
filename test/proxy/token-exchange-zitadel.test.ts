// backend.auth.oauthTokenExchange against a second, independent RFC 8693 implementation: zitadel/oidc's
// OpenID provider (test/zitadel-op, built by `make zitadel-op`). The gateway authenticates with
// client_secret_basic, sends the validated client token as the subject token, and the echo upstream records
// the Authorization header it received; the provider's own userinfo endpoint proves the token is one it issued
// for that subject. A wrong client secret is refused by the provider and the request never reaches upstream.
import { SignJWT, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSigningKey } from '../support/oidc/provider.js';
import { startZitadelOp, type ZitadelOp } from '../support/oidc/zitadel-op.js';
import { seen, startAuthBench, type AuthBench } from './http-auth-harness.js';

const ISSUER = 'https://users.example';
const SECRET = 'zitadel-secret-6c1e93';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('token exchange against zitadel/oidc (a second RFC 8693 server)', () => {
  let op: ZitadelOp;
  let bench: AuthBench;
  let userToken: (sub: string) => Promise<string>;
  /** The access token zitadel issued, as the upstream received it. */
  let issued = '';

  beforeAll(async () => {
    const users = await makeSigningKey('users');
    const userKey = await importJWK(users.privateJwk, 'RS256');
    userToken = (sub) =>
      new SignJWT({ sub })
        .setProtectedHeader({ alg: 'RS256', kid: 'users' })
        .setIssuer(ISSUER)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(userKey);
    op = await startZitadelOp({
      clientId: 'gw-zitadel',
      clientSecret: SECRET,
      subjectIssuer: ISSUER,
      subjectJwks: { keys: [users.publicJwk] },
    });
    const jwks = JSON.stringify(JSON.stringify({ keys: [users.publicJwk] }));
    const exchange = (secretName: string): string =>
      `{jwtAuthentication: {providers: [{issuer: "${ISSUER}", jwks: {inline: ${jwks}}}]}}
  backend: {auth: {oauthTokenExchange: {url: "${op.issuer}", path: /oauth/token, audiences: [tools], scopes: [openid], clientAuth: {clientId: gw-zitadel, secretRef: {name: ${secretName}}}}}}`;
    const secret = (name: string, value: string): string => `
apiVersion: v1
kind: Secret
metadata: {name: ${name}, namespace: default}
data: {clientSecret: ${b64(value)}}
`;
    bench = await startAuthBench(
      [
        { name: 'basic', traffic: exchange('zop-client') },
        { name: 'wrong', traffic: exchange('zop-wrong') },
      ],
      [secret('zop-client', SECRET), secret('zop-wrong', 'not-the-secret')].join('---\n'),
    );
  });

  afterAll(async () => {
    await bench?.close();
    await op?.stop();
  });

  it('sends upstream the access token zitadel issued for the subject, never the client token', async () => {
    const alice = await userToken('alice');
    const res = await bench.get('/basic/x', { authorization: `Bearer ${alice}` });
    expect(res.status, res.body).toBe(200);
    const sent = String(seen(res).headers.authorization);
    expect(sent).toMatch(/^Bearer /);
    expect(sent).not.toContain(alice);
    issued = sent.slice('Bearer '.length);
    expect(await op.subjectOf(issued)).toBe('alice');
    expect(await op.exchanges()).toEqual([
      { subject: 'alice', clientId: 'gw-zitadel', audience: ['tools'], scopes: ['openid'] },
    ]);
    // The second request of the subject is served from the cache: no second exchange.
    const again = await bench.get('/basic/x', { authorization: `Bearer ${alice}` });
    expect(seen(again).headers.authorization).toBe(sent);
    expect(await op.exchanges()).toHaveLength(1);
  });

  it('answers 502 when zitadel refuses the client secret, and the upstream is never called', async () => {
    const hits = bench.hits();
    const bob = await userToken('bob');
    const res = await bench.get('/wrong/x', { authorization: `Bearer ${bob}` });
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'credential_unavailable' });
    expect(res.body).not.toContain(bob);
    expect(bench.hits()).toBe(hits);
    expect((await op.exchanges()).map((e) => e.subject)).not.toContain('bob');
  });

  it('writes neither the client secret nor a token to the log or the metrics', async () => {
    const logs = bench.logged.join('') + (await bench.metrics());
    expect(issued).not.toBe('');
    expect(logs).not.toContain(SECRET);
    expect(logs).not.toContain(issued);
    expect(logs).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  });
});
