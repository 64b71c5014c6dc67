// backend.auth.oauthTokenExchange and jwtSign, translated and served by the real runtime against a real
// authorization server: oidc-provider with the token-exchange and jwt-bearer grants registered through
// registerGrantType (test/support/oidc/token-exchange.ts). The provider authenticates the gateway as a
// client by the method its client metadata names, so a skipped or wrong client authentication fails; the
// echo upstream records the Authorization header it received.
import { createHash, createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { decodeProtectedHeader, exportJWK, importJWK, importSPKI, jwtVerify, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSigningKey, startProvider, type OidcHarness } from '../support/oidc/provider.js';
import {
  ID_JAG_TYPE,
  JWT_BEARER,
  registerExchangeGrants,
  TOKEN_EXCHANGE,
  type ExchangeGrants,
} from '../support/oidc/token-exchange.js';
import { issueLeaf, testCa } from '../support/test-certs.js';
import { seen, startAuthBench, type AuthBench } from './http-auth-harness.js';
import { trafficManifests, type TrafficCase } from './traffic-manifests.js';
import { explainedAndStatuses } from './secret-surfaces.js';

const ISSUER = 'https://users.example';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const BASIC_SECRET = 'basic-secret-3f9a1c';
const POST_SECRET = 'post-secret-77d2e0';
const RAS_SECRET = 'ras-secret-0b5e42';

describe('backend identities: token exchange and signed JWTs', () => {
  let as: OidcHarness;
  /** The resource's authorization server of cross-app access: it trusts ID-JAGs `as` signs. */
  let ras: OidcHarness;
  let rasGrants: ExchangeGrants;
  let grants: ExchangeGrants;
  let bench: AuthBench;
  let userKey: CryptoKey;
  let now = Date.now();
  const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs1', format: 'pem' })
    .toString();
  const ecPem = generateKeyPairSync('ec', { namedCurve: 'P-384' })
    .privateKey.export({ type: 'sec1', format: 'pem' })
    .toString();
  let client: { cert: string; key: string };
  let cases: TrafficCase[] = [];
  let extra = '';

  /** A user (or agent) token from the IdP both the gateway and the authorization server trust. */
  const userToken = (sub: string, claims: Record<string, unknown> = {}): Promise<string> =>
    new SignJWT({ sub, ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'users' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime('2h')
      .sign(userKey);

  beforeAll(async () => {
    const users = await makeSigningKey('users');
    userKey = (await importJWK(users.privateJwk, 'RS256')) as CryptoKey;
    client = issueLeaf(await testCa(), ['gw-client'], 'client');
    const clientJwk = { ...(await exportJWK(createPublicKey(client.key))), kid: 'gw-1', alg: 'RS256', use: 'sig' };
    const asKey = await makeSigningKey('as');
    const meta = { grant_types: [TOKEN_EXCHANGE, JWT_BEARER], response_types: [], redirect_uris: [] };
    as = await startProvider({
      issuerPath: '/as',
      routes: { authorization: '/as/auth', token: '/as/token', jwks: '/as/jwks' },
      clients: [
        {
          ...meta,
          client_id: 'gw-basic',
          client_secret: BASIC_SECRET,
          token_endpoint_auth_method: 'client_secret_basic',
        },
        { ...meta, client_id: 'gw-post', client_secret: POST_SECRET, token_endpoint_auth_method: 'client_secret_post' },
        { ...meta, client_id: 'gw-pkjwt', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [clientJwk] } },
      ],
      key: asKey,
      resource: { default: 'https://tools.example', audience: (i) => i, scope: 'tools.read' },
    });
    grants = registerExchangeGrants(
      as.provider,
      { keys: [users.publicJwk] },
      { idJag: { key: asKey, issuer: as.issuer } },
    );
    ras = await startProvider({
      issuerPath: '/ras',
      routes: { authorization: '/ras/auth', token: '/ras/token', jwks: '/ras/jwks' },
      clients: [
        {
          ...meta,
          client_id: 'gw-at-ras',
          client_secret: RAS_SECRET,
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      key: await makeSigningKey('ras'),
      resource: { default: 'https://tools.example', audience: (i) => i, scope: 'tools.read' },
    });
    rasGrants = registerExchangeGrants(ras.provider, { keys: [asKey.publicJwk] }, { assertionAudience: ras.issuer });
    const jwks = JSON.stringify(JSON.stringify({ keys: [users.publicJwk] }));
    const jwt = `{jwtAuthentication: {providers: [{issuer: "${ISSUER}", jwks: {inline: ${jwks}}}]}}`;
    const exchange = (extra: string): string =>
      `${jwt}\n  backend: {auth: {oauthTokenExchange: {url: "${as.origin}", path: /as/token, ${extra}}}}`;
    const basic = `clientAuth: {clientId: gw-basic, secretRef: {name: as-basic}}`;
    cases = [
      { name: 'basic', traffic: exchange(`audiences: [tools], scopes: [tools.read], ${basic}`) },
      {
        name: 'post',
        traffic: exchange(
          `clientAuth: {clientId: gw-post, method: ClientSecretPost, secretRef: {name: as-post}}, additionalParams: {tenant: 'jwt.sub + "-tenant"'}`,
        ),
      },
      {
        name: 'pkjwt',
        traffic: exchange(
          `clientAuth: {clientId: gw-pkjwt, method: PrivateKeyJwt, privateKeyJwt: {signingKeyRef: {name: as-client}, certificateRef: {name: as-client}, certificateHeader: x5c, kid: gw-1, assertionAudience: "${as.issuer}"}}`,
        ),
      },
      {
        name: 'thumb',
        traffic: exchange(
          `clientAuth: {clientId: gw-pkjwt, method: PrivateKeyJwt, privateKeyJwt: {signingKeyRef: {name: as-client}, certificateRef: {name: as-client}, certificateHeader: "x5t#S256", kid: gw-1, assertionAudience: "${as.issuer}"}}`,
        ),
      },
      {
        name: 'actor',
        traffic: exchange(
          `${basic}, actorToken: {source: 'request.headers["x-agent-token"]', mayAct: Required}, location: {header: {name: x-tool-token, prefix: "Token "}}`,
        ),
      },
      {
        name: 'subject',
        traffic: exchange(
          `${basic}, subjectToken: {source: 'request.headers["x-user-token"]'}, requestedTokenType: AccessToken, resources: ["https://tools.example/api"], location: {cookie: {name: tool_session}}`,
        ),
      },
      {
        name: 'xaa',
        traffic: `${jwt}\n  backend: {auth: {crossAppAccess: {identityProvider: {url: "${as.origin}", path: /as/token, ${basic}}, resourceAuthorizationServer: {url: "${ras.origin}", path: /ras/token, clientAuth: {clientId: gw-at-ras, method: ClientSecretPost, secretRef: {name: ras-client}}}, audience: "${ras.issuer}", scopes: [tools.read], accessTokenScopes: [tools.read]}}}`,
      },
      { name: 'nocache', traffic: exchange(`${basic}, cache: {inMemory: {maxEntries: 0}}`) },
      {
        name: 'mismatch',
        traffic: `{}\n  backend: {auth: {jwtSign: {signingKeyRef: {name: signer-rsa}, alg: ES256}}}`,
      },
      { name: 'bearer', traffic: exchange(`grantType: JwtBearer, scopes: [tools.read], ${basic}`) },
      { name: 'wrongsecret', traffic: exchange(`clientAuth: {clientId: gw-basic, secretRef: {name: as-post}}`) },
      {
        name: 'down',
        traffic: `${jwt}\n  backend: {auth: {oauthTokenExchange: {url: "http://127.0.0.1:1", ${basic}}}}`,
      },
      {
        name: 'signed',
        traffic: `{}\n  backend: {auth: {jwtSign: {signingKeyRef: {name: signer-rsa}, kid: k-rsa, claims: {iss: gw, aud: tools}, ttl: 120s}}}`,
      },
      {
        name: 'signedec',
        traffic: `{}\n  backend: {auth: {jwtSign: {signingKeyRef: {name: signer-ec}, alg: ES384, claims: {iss: gw}, location: {queryParameter: {name: assertion}}}}}`,
      },
    ];
    extra = [
      secret('as-basic', { clientSecret: BASIC_SECRET }),
      secret('as-post', { clientSecret: POST_SECRET }),
      secret('ras-client', { clientSecret: RAS_SECRET }),
      secret('as-client', { signingKey: client.key, 'tls.crt': client.cert }),
      secret('signer-rsa', { signingKey: rsaPem }),
      secret('signer-ec', { signingKey: ecPem }),
    ].join('---\n');
    bench = await startAuthBench(cases, extra, { clock: () => now });
  });

  afterAll(async () => {
    await bench?.close();
    await as?.close();
    await ras?.close();
  });

  const exchanged = async (path: string, headers: Record<string, string>) => {
    const before = grants.issued.length;
    const res = await bench.get(path, headers);
    expect(res.status, res.body).toBe(200);
    return { upstream: seen(res).headers, issued: grants.issued.slice(before) };
  };

  it('exchanges the validated client token with client_secret_basic and sends only the new token upstream', async () => {
    const alice = await userToken('alice');
    const { upstream, issued } = await exchanged('/basic/x', { authorization: `Bearer ${alice}` });
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ grant: TOKEN_EXCHANGE, clientId: 'gw-basic', sub: 'alice', audience: ['tools'] });
    expect(issued[0]?.scope).toBe('tools.read');
    expect(upstream.authorization).toBe(`Bearer ${issued[0]?.token}`);
    expect(JSON.stringify(upstream)).not.toContain(alice);
    expect(await as.provider.AccessToken.find(issued[0]?.token ?? '')).toMatchObject({ accountId: 'alice' });
  });

  it('caches per subject, renews before expiry, and keeps the cache across an unchanged snapshot', async () => {
    const bob = await userToken('bob');
    const first = await exchanged('/basic/x', { authorization: `Bearer ${bob}` });
    expect(first.issued).toHaveLength(1);
    const again = await exchanged('/basic/x', { authorization: `Bearer ${bob}` });
    expect(again.issued).toHaveLength(0);
    expect(again.upstream.authorization).toBe(first.upstream.authorization);
    // Another subject is another exchange.
    expect((await exchanged('/basic/x', { authorization: `Bearer ${await userToken('carol')}` })).issued).toHaveLength(
      1,
    );
    await bench.reapply();
    expect((await exchanged('/basic/x', { authorization: `Bearer ${bob}` })).issued).toHaveLength(0);
    // 600s tokens are renewed 60s before they expire.
    now += 541_000;
    const renewed = await exchanged('/basic/x', { authorization: `Bearer ${bob}` });
    expect(renewed.issued).toHaveLength(1);
    expect(renewed.upstream.authorization).not.toBe(first.upstream.authorization);
  });

  it('authenticates with client_secret_post and sends additionalParams evaluated per request', async () => {
    const { upstream, issued } = await exchanged('/post/x', { authorization: `Bearer ${await userToken('dave')}` });
    expect(issued[0]).toMatchObject({ clientId: 'gw-post', sub: 'dave' });
    expect(issued[0]?.params.tenant).toBe('dave-tenant');
    expect(upstream.authorization).toBe(`Bearer ${issued[0]?.token}`);
  });

  it('authenticates with private_key_jwt carrying the certificate as x5c or as its x5t#S256 thumbprint', async () => {
    const x5c = await exchanged('/pkjwt/x', { authorization: `Bearer ${await userToken('erin')}` });
    expect(x5c.issued[0]).toMatchObject({ clientId: 'gw-pkjwt', sub: 'erin' });
    const der = new X509Certificate(client.cert).raw;
    const h1 = decodeProtectedHeader(String(x5c.issued[0]?.params.client_assertion));
    expect(h1).toMatchObject({ alg: 'RS256', kid: 'gw-1', x5c: [der.toString('base64')] });
    const thumb = await exchanged('/thumb/x', { authorization: `Bearer ${await userToken('erin')}` });
    const h2 = decodeProtectedHeader(String(thumb.issued[0]?.params.client_assertion));
    expect(h2['x5t#S256']).toBe(createHash('sha256').update(der).digest('base64url'));
    expect(h2.x5c).toBeUndefined();
  });

  it('sends the actor token when the subject may_act names the actor, and refuses otherwise without an exchange', async () => {
    const agent = await userToken('agent-7');
    const frank = await userToken('frank', { may_act: { sub: 'agent-7' } });
    const { upstream, issued } = await exchanged('/actor/x', {
      authorization: `Bearer ${frank}`,
      'x-agent-token': agent,
    });
    expect(issued[0]).toMatchObject({ sub: 'frank', act: 'agent-7' });
    expect(upstream['x-tool-token']).toBe(`Token ${issued[0]?.token}`);
    // Neither the client's token nor the actor's goes upstream.
    expect(upstream.authorization).toBeUndefined();
    expect(upstream['x-agent-token']).toBeUndefined();
    const before = grants.issued.length;
    const hits = bench.hits();
    const notAllowed = await bench.get('/actor/x', {
      authorization: `Bearer ${await userToken('grace', { may_act: { sub: 'someone-else' } })}`,
      'x-agent-token': agent,
    });
    expect(notAllowed.status).toBe(401);
    expect(JSON.parse(notAllowed.body)).toMatchObject({ error: 'invalid_token' });
    const noClaim = await bench.get('/actor/x', {
      authorization: `Bearer ${await userToken('heidi')}`,
      'x-agent-token': agent,
    });
    expect(noClaim.status).toBe(401);
    expect(grants.issued.length).toBe(before);
    expect(bench.hits()).toBe(hits);
  });

  it('takes the subject token from the CEL source, asks for the token type and resource, and sets a cookie', async () => {
    const kim = await userToken('kim');
    const { upstream, issued } = await exchanged('/subject/x', {
      authorization: `Bearer ${await userToken('route-user')}`,
      'x-user-token': kim,
      cookie: 'other=1; tool_session=stale',
    });
    expect(issued[0]).toMatchObject({ sub: 'kim' });
    expect(issued[0]?.params).toMatchObject({
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      resource: 'https://tools.example/api',
    });
    expect(upstream.cookie).toBe(`other=1; tool_session=${issued[0]?.token}`);
    expect(upstream['x-user-token']).toBeUndefined();
    expect(upstream.authorization).toBeUndefined();
  });

  it('exchanges on every request when maxEntries is 0', async () => {
    const t = `Bearer ${await userToken('leo')}`;
    expect((await exchanged('/nocache/x', { authorization: t })).issued).toHaveLength(1);
    expect((await exchanged('/nocache/x', { authorization: t })).issued).toHaveLength(1);
  });

  it('refuses an edge whose key cannot sign with its alg, without naming the key', async () => {
    const res = await bench.get('/mismatch/x');
    expect(res.status).toBe(500);
    const body = JSON.parse(res.body) as { error: string; error_description: string };
    expect(body.error).toBe('credential_missing');
    expect(body.error_description).toMatch(/missing or unusable/);
    expect(body.error_description).not.toMatch(/BEGIN|PRIVATE KEY/);
  });

  it('gets an ID-JAG for the ID token at the identity provider and trades it for an access token (cross-app access)', async () => {
    const idToken = await userToken('mia');
    const before = rasGrants.issued.length;
    const res = await bench.get('/xaa/x', { authorization: `Bearer ${idToken}` });
    expect(res.status, res.body).toBe(200);
    const atIdp = grants.issued.at(-1);
    expect(atIdp).toMatchObject({ grant: TOKEN_EXCHANGE, clientId: 'gw-basic', sub: 'mia', audience: [ras.issuer] });
    expect(atIdp?.params).toMatchObject({
      requested_token_type: ID_JAG_TYPE,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      scope: 'tools.read',
    });
    const atRas = rasGrants.issued.slice(before);
    expect(atRas).toHaveLength(1);
    expect(atRas[0]).toMatchObject({ grant: JWT_BEARER, clientId: 'gw-at-ras', sub: 'mia', scope: 'tools.read' });
    expect(atRas[0]?.params.assertion).toBe(atIdp?.token);
    expect(decodeProtectedHeader(String(atIdp?.token)).typ).toBe('oauth-id-jag+jwt');
    expect(seen(res).headers.authorization).toBe(`Bearer ${atRas[0]?.token}`);
    // Both steps are cached: the same ID token costs no further grant.
    const again = await bench.get('/xaa/x', { authorization: `Bearer ${idToken}` });
    expect(seen(again).headers.authorization).toBe(`Bearer ${atRas[0]?.token}`);
    expect(rasGrants.issued.length).toBe(before + 1);
  });

  it('uses the jwt-bearer grant with the client token as the assertion', async () => {
    const { upstream, issued } = await exchanged('/bearer/x', { authorization: `Bearer ${await userToken('ivan')}` });
    expect(issued[0]).toMatchObject({ grant: JWT_BEARER, sub: 'ivan', scope: 'tools.read' });
    expect(upstream.authorization).toBe(`Bearer ${issued[0]?.token}`);
  });

  it('answers 502 when the authorization server refuses the client or cannot be reached, and never forwards', async () => {
    const hits = bench.hits();
    const t = `Bearer ${await userToken('judy')}`;
    const refused = await bench.get('/wrongsecret/x', { authorization: t });
    expect(refused.status).toBe(502);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'credential_unavailable' });
    const down = await bench.get('/down/x', { authorization: t });
    expect(down.status).toBe(502);
    expect(bench.hits()).toBe(hits);
  });

  it('answers 401 when the request carries no subject token', async () => {
    const res = await bench.get('/basic/x');
    expect(res.status).toBe(401);
  });

  it('signs a JWT with the RSA key from the Secret, with its kid and claims, renewed before ttl runs out', async () => {
    const got = async (): Promise<string> => {
      const res = await bench.get('/signed/x', { authorization: 'Bearer client-token' });
      expect(res.status).toBe(200);
      return String(seen(res).headers.authorization).replace(/^Bearer /, '');
    };
    const first = await got();
    const publicPem = createPublicKey(rsaPem).export({ type: 'spki', format: 'pem' }).toString();
    const { payload, protectedHeader } = await jwtVerify(first, await importSPKI(publicPem, 'RS256'), {
      currentDate: new Date(now),
    });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: 'k-rsa' });
    expect(payload).toMatchObject({ iss: 'gw', aud: 'tools' });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120);
    expect(await got()).toBe(first);
    now += 100_000;
    expect(await got()).not.toBe(first);
  });

  it('signs with an EC key as ES384 and places the JWT in the query parameter', async () => {
    const res = await bench.get('/signedec/x?a=1');
    expect(res.status).toBe(200);
    const url = new URL(seen(res).url, 'http://x');
    expect(url.searchParams.get('a')).toBe('1');
    const jwt = url.searchParams.get('assertion') ?? '';
    const publicPem = createPublicKey(ecPem).export({ type: 'spki', format: 'pem' }).toString();
    const { payload } = await jwtVerify(jwt, await importSPKI(publicPem, 'ES384'), { currentDate: new Date(now) });
    expect(payload.iss).toBe('gw');
  });

  it('never shows a secret, a key or a token in logs, error bodies, statuses, gw explain or metrics', async () => {
    const secrets = [
      BASIC_SECRET,
      POST_SECRET,
      RAS_SECRET,
      client.key.split('\n')[1] ?? '',
      rsaPem.split('\n')[1] ?? '',
    ];
    secrets.push(ecPem.split('\n')[1] ?? '');
    const tokens = [...grants.issued, ...rasGrants.issued].flatMap((i) =>
      [i.token, i.params.subject_token, i.params.actor_token, i.params.assertion].filter(
        (t): t is string => typeof t === 'string' && t !== '',
      ),
    );
    expect(tokens.length).toBeGreaterThan(grants.issued.length);
    const { explained, statuses } = explainedAndStatuses(
      trafficManifests(1, cases, extra),
      cases.map((c) => c.name),
    );
    // The refused edge says why on its route's status.
    expect(statuses).toContain('alg ES256 cannot sign with this rsa key');
    const metrics = await bench.metrics();
    // The exposition has the request series of the routes this test used.
    expect(metrics).toMatch(/gw_http_requests_total\{[^}]*\} [1-9]/);
    const text = [
      ...bench.logged,
      ...bench.bodies.filter((b) => !b.includes('"url"')),
      explained,
      statuses,
      metrics,
    ].join('\n');
    expect(explained).toContain('oauthTokenExchange');
    for (const s of [...secrets, ...tokens]) expect(text).not.toContain(s);
  });
});

function secret(name: string, data: Record<string, string>): string {
  const entries = Object.entries(data)
    .map(([k, v]) => `"${k}": ${b64(v)}`)
    .join(', ');
  return `
apiVersion: v1
kind: Secret
metadata: {name: ${name}, namespace: default}
data: {${entries}}
`;
}
