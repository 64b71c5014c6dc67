// A token endpoint named by a backendRef to a backend with TLS: `oauthTokenExchange.backendRef` to a static
// GwBackend whose `policies.tls` names a private CA, the SNI and a client certificate (tls-testdata/). The
// authorization server is a real oidc-provider with the token-exchange grant (test/support/oidc/), behind a
// TLS front that requires a client certificate from that CA. The right CA and the client certificate get the
// exchange done and only the new token goes upstream; a wrong CA, or no client certificate, fails closed
// (502, the upstream never called, the client's token never forwarded).
import { readFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSigningKey, startProvider, type OidcHarness } from '../support/oidc/provider.js';
import { registerExchangeGrants, TOKEN_EXCHANGE, type ExchangeGrants } from '../support/oidc/token-exchange.js';
import { seen, startAuthBench, type AuthBench } from './http-auth-harness.js';
import { explainedAndStatuses } from './secret-surfaces.js';
import { trafficManifests, type TrafficCase } from './traffic-manifests.js';

const pem = (f: string): string => readFileSync(join(import.meta.dirname, 'tls-testdata', f), 'utf8');
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const ISSUER = 'https://users.example';
const SECRET = 'tls-endpoint-secret-5c1d88';

describe('token endpoint through a backendRef with the backend TLS', () => {
  let as: OidcHarness;
  let grants: ExchangeGrants;
  let front: TlsServer;
  let bench: AuthBench;
  let userKey: CryptoKey;
  let cases: TrafficCase[] = [];
  let extra = '';
  /** Tokens the authorization server issued and the user tokens the clients sent: never shown anywhere. */
  const tokens: string[] = [];
  /** Client certificates the front saw, by common name ('' for none). */
  const clientNames: string[] = [];

  const userToken = (sub: string): Promise<string> =>
    new SignJWT({ sub })
      .setProtectedHeader({ alg: 'RS256', kid: 'users' })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(userKey);

  beforeAll(async () => {
    const users = await makeSigningKey('users');
    userKey = (await importJWK(users.privateJwk, 'RS256')) as CryptoKey;
    as = await startProvider({
      issuerPath: '/as',
      routes: { authorization: '/as/auth', token: '/as/token', jwks: '/as/jwks' },
      clients: [
        {
          client_id: 'gw',
          client_secret: SECRET,
          token_endpoint_auth_method: 'client_secret_basic',
          grant_types: [TOKEN_EXCHANGE],
          response_types: [],
          redirect_uris: [],
        },
      ],
      key: await makeSigningKey('as'),
      resource: { default: 'https://tools.example', audience: (i) => i, scope: 'tools.read' },
    });
    grants = registerExchangeGrants(as.provider, { keys: [users.publicJwk] });
    const asPort = Number(new URL(as.origin).port);
    front = createTlsServer(
      { cert: pem('a.crt'), key: pem('a.key'), ca: pem('ca.crt'), requestCert: true, rejectUnauthorized: true },
      (s) => {
        clientNames.push(String(s.getPeerCertificate().subject?.CN ?? ''));
        const to = connect(asPort, '127.0.0.1');
        s.pipe(to).pipe(s);
        s.on('error', () => to.destroy());
        to.on('error', () => s.destroy());
      },
    );
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const frontPort = (front.address() as AddressInfo).port;
    const endpoint = (name: string, tls: string) => `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${frontPort}}
  policies: {tls: ${tls}}
`;
    const ca = (name: string, crt: string) => `
apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}, namespace: default}
data: {ca.crt: ${JSON.stringify(pem(crt))}}
`;
    extra = [
      ca('as-ca', 'ca.crt'),
      ca('other-ca', 'b.crt'),
      `
apiVersion: v1
kind: Secret
metadata: {name: client, namespace: default}
type: kubernetes.io/tls
data: {tls.crt: ${b64(pem('client.crt'))}, tls.key: ${b64(pem('client.key'))}}
`,
      `
apiVersion: v1
kind: Secret
metadata: {name: as-client, namespace: default}
data: {clientSecret: ${b64(SECRET)}}
`,
      endpoint('as', '{sni: a.example.test, caCertificateRefs: [{name: as-ca}], mtlsCertificateRef: [{name: client}]}'),
      endpoint(
        'as-other-ca',
        '{sni: a.example.test, caCertificateRefs: [{name: other-ca}], mtlsCertificateRef: [{name: client}]}',
      ),
      endpoint('as-no-cert', '{sni: a.example.test, caCertificateRefs: [{name: as-ca}]}'),
    ].join('---\n');
    const jwks = JSON.stringify(JSON.stringify({ keys: [users.publicJwk] }));
    const exchange = (backend: string) =>
      `{jwtAuthentication: {providers: [{issuer: "${ISSUER}", jwks: {inline: ${jwks}}}]}}\n  backend: {auth: {oauthTokenExchange: {backendRef: {group: gw.dev, kind: GwBackend, name: ${backend}}, path: /as/token, audiences: [tools], clientAuth: {clientId: gw, secretRef: {name: as-client}}}}}`;
    cases = [
      { name: 'trusted', traffic: exchange('as') },
      { name: 'wrongca', traffic: exchange('as-other-ca') },
      { name: 'nocert', traffic: exchange('as-no-cert') },
    ];
    bench = await startAuthBench(cases, extra);
  });

  afterAll(async () => {
    await bench?.close();
    await new Promise((resolve) => front?.close(resolve));
    await as?.close();
  });

  it('carries the backend TLS on the credential in the IR, the token URL as https', () => {
    type Cred = { tokenExchange?: { tokenUrl: string; tls: { sni: string; caPem: string; source: string } | null } };
    const snapshot = JSON.parse(bench.ir) as { resources: { route?: { backends: { credential?: Cred }[] } }[] };
    const exchanges = snapshot.resources
      .flatMap((r) => r.route?.backends ?? [])
      .map((b) => b.credential?.tokenExchange);
    expect(exchanges).toHaveLength(3);
    for (const e of exchanges) {
      expect(e?.tokenUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/as\/token$/);
      expect(e?.tls).toMatchObject({ sni: 'a.example.test', caPem: expect.stringContaining('BEGIN CERTIFICATE') });
    }
  });

  it('exchanges over TLS with the CA, SNI and client certificate of the backend and sends only the new token', async () => {
    const alice = await userToken('alice');
    tokens.push(alice);
    const before = grants.issued.length;
    const res = await bench.get('/trusted/x', { authorization: `Bearer ${alice}` });
    expect(res.status, res.body).toBe(200);
    const issued = grants.issued.slice(before);
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ grant: TOKEN_EXCHANGE, clientId: 'gw', sub: 'alice', audience: ['tools'] });
    expect(seen(res).headers.authorization).toBe(`Bearer ${issued[0]?.token}`);
    expect(JSON.stringify(seen(res).headers)).not.toContain(alice);
    expect(clientNames.at(-1)).toBe('gw-proxy');
    tokens.push(issued[0]?.token ?? '');
  });

  it.each(['wrongca', 'nocert'])(
    'fails closed when the TLS to the token endpoint fails (%s): 502, nothing forwarded',
    async (name) => {
      const bob = await userToken('bob');
      tokens.push(bob);
      const before = grants.issued.length;
      const hits = bench.hits();
      const res = await bench.get(`/${name}/x`, { authorization: `Bearer ${bob}` });
      expect(res.status).toBe(502);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'credential_unavailable' });
      expect(res.body).not.toContain(bob);
      expect(res.body).not.toContain(SECRET);
      expect(grants.issued.length).toBe(before);
      expect(bench.hits()).toBe(hits);
      expect(bench.logged.join('')).not.toContain(SECRET);
    },
  );

  it('never shows the client secret, the client key or a token in logs, gw explain, statuses or metrics', async () => {
    expect(tokens.filter((t) => t !== '')).toHaveLength(4);
    const { explained, statuses } = explainedAndStatuses(
      trafficManifests(1, cases, extra),
      cases.map((c) => c.name),
    );
    expect(explained).toContain('oauthTokenExchange');
    // The error bodies are checked where they are answered; the other bodies are the echo upstream's, which repeats the token it got.
    const text = [...bench.logged, explained, statuses, await bench.metrics()].join('\n');
    const clientKey = pem('client.key').split('\n')[1] ?? '';
    expect(clientKey.length).toBeGreaterThan(20);
    for (const s of [...tokens, SECRET, clientKey]) expect(text).not.toContain(s);
  });
});
