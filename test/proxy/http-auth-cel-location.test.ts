// `location.expression` of traffic.jwtAuthentication and traffic.apiKeyAuthentication: a CEL expression over
// `request` whose string value is the credential, translated from manifests and served by a real runtime to a
// real node:http upstream. The credential is read only where the expression says, and removed before the
// upstream sees it; an expression that does not compile refuses the route (503), never serves it open.
import { SignJWT, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSigningKey } from '../support/oidc/provider.js';
import { seen, startAuthBench, type AuthBench } from './http-auth-harness.js';

const KEY = 'sk-cel-located-7c1e9b';
const ISSUER = 'https://cel.example';

describe('CEL credential locations', () => {
  let bench: AuthBench;
  let token: string;

  beforeAll(async () => {
    const key = await makeSigningKey('cel');
    token = await new SignJWT({ sub: 'ada' })
      .setProtectedHeader({ alg: 'RS256', kid: 'cel' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(await importJWK(key.privateJwk, 'RS256'));
    const jwks = JSON.stringify(JSON.stringify({ keys: [key.publicJwk] }));
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    bench = await startAuthBench(
      [
        {
          name: 'celkey',
          traffic: `{apiKeyAuthentication: {secretRef: {name: api-keys}, location: {expression: 'request.headers["x-team-key"]'}}}`,
        },
        {
          name: 'celjwt',
          traffic: `{jwtAuthentication: {providers: [{issuer: "${ISSUER}", jwks: {inline: ${jwks}}}], location: {expression: 'request.headers["x-id-token"]'}}}`,
        },
        {
          name: 'celbad',
          traffic: `{apiKeyAuthentication: {secretRef: {name: api-keys}, location: {expression: 'jwt.sub'}}}`,
        },
      ],
      `apiVersion: v1
kind: Secret
metadata: {name: api-keys, namespace: default}
data: {team: ${b64(KEY)}}
`,
    );
  });

  afterAll(async () => {
    await bench?.close();
  });

  it('reads the API key where the expression says and removes it before the upstream', async () => {
    const res = await bench.get('/celkey/x', { 'x-team-key': KEY });
    expect(res.status).toBe(200);
    expect(JSON.stringify(seen(res).headers)).not.toContain(KEY);
    // The default location is not read: the key in Authorization is no key here.
    expect((await bench.get('/celkey/x', { authorization: `Bearer ${KEY}` })).status).toBe(401);
    expect((await bench.get('/celkey/x', { 'x-team-key': 'sk-wrong' })).status).toBe(401);
  });

  it('reads the JWT where the expression says and removes it before the upstream', async () => {
    const res = await bench.get('/celjwt/x', { 'x-id-token': token });
    expect(res.status).toBe(200);
    expect(JSON.stringify(seen(res).headers)).not.toContain(token);
    expect((await bench.get('/celjwt/x', { authorization: `Bearer ${token}` })).status).toBe(401);
    expect((await bench.get('/celjwt/x', { 'x-id-token': `${token}x` })).status).toBe(401);
  });

  it('refuses a route whose expression does not compile, naming the field, and never calls the upstream', async () => {
    const before = bench.hits();
    const res = await bench.get('/celbad/x', { 'x-team-key': KEY });
    expect(res.status).toBe(503);
    expect(res.body).toContain('apiKeyAuthentication');
    expect(bench.ir).toContain('location.expression');
    expect(bench.hits()).toBe(before);
  });
});
