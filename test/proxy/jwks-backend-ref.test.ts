// `jwtAuthentication.providers[].jwks.remote.backendRef` (+ `path`) through a real listener: the keys come
// from a real HTTPS server (a private CA, tls-testdata/) behind a static GwBackend whose `policies.tls`
// names the CA and the SNI; the proxy fetches them with that TLS. Without the CA, or with a CA that did not
// sign the server's certificate, no key loads and every token is refused (401) — never accepted unchecked.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthBench, type AuthBench } from './http-auth-harness.js';

const pem = (f: string): string => readFileSync(join(import.meta.dirname, 'tls-testdata', f), 'utf8');
const issuer = 'https://idp.jwks-ref.example';

describe('JWKS fetched through a backendRef with the backend TLS', () => {
  let idp: Server;
  let bench: AuthBench;
  let signer: CryptoKey;
  let fetched = 0;
  const token = () =>
    new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(issuer)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(signer);

  beforeAll(async () => {
    const keys = await generateKeyPair('ES256');
    signer = keys.privateKey;
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256' }] });
    idp = createServer({ cert: pem('a.crt'), key: pem('a.key') }, (req, res) => {
      if (req.url !== '/keys/jwks.json') return void res.writeHead(404).end();
      fetched++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    const port = (idp.address() as AddressInfo).port;
    const backend = (name: string, tls: string) => `
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${port}}
  ${tls ? `policies: {tls: ${tls}}` : ''}
`;
    const jwt = (backendName: string) =>
      `{jwtAuthentication: {providers: [{issuer: '${issuer}', jwks: {remote: {backendRef: {group: gw.dev, kind: GwBackend, name: ${backendName}}, path: /keys/jwks.json}}}]}}`;
    bench = await startAuthBench(
      [
        { name: 'trusted', traffic: jwt('idp') },
        { name: 'plain', traffic: jwt('idp-plain') },
        { name: 'wrong-ca', traffic: jwt('idp-other-ca') },
      ],
      `apiVersion: v1
kind: ConfigMap
metadata: {name: idp-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(pem('ca.crt'))}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(pem('b.crt'))}}
${backend('idp', '{sni: a.example.test, caCertificateRefs: [{name: idp-ca}]}')}${backend('idp-plain', '')}${backend(
        'idp-other-ca',
        '{sni: a.example.test, caCertificateRefs: [{name: other-ca}]}',
      )}`,
    );
  });

  afterAll(async () => {
    await bench?.close();
    await new Promise((resolve) => idp?.close(resolve));
  });

  it('carries the fetch URL and the backend TLS in the IR, never the server key', () => {
    expect(bench.ir).toContain('/keys/jwks.json');
    expect(bench.ir).toContain('jwksTls');
    expect(bench.ir).toContain('a.example.test');
  });

  it('verifies a token with keys fetched over HTTPS with the private CA and SNI', async () => {
    const res = await bench.get('/trusted/x', { authorization: `Bearer ${await token()}` });
    expect(res.status).toBe(200);
    expect(fetched).toBeGreaterThan(0);
    expect((await bench.get('/trusted/x')).status).toBe(401);
  });

  it('refuses every token when the keys cannot be fetched with the backend TLS', async () => {
    for (const path of ['/plain/x', '/wrong-ca/x']) {
      const res = await bench.get(path, { authorization: `Bearer ${await token()}` });
      expect(res.status, path).toBe(401);
    }
  });
});
