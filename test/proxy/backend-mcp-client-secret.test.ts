// `backend.mcp.authentication.clientSecretRef` (the deprecated MCPAuthentication form, seed 001: "injected into
// proxied token requests"): the secret of the gateway's own registration at an IdpF-shaped provider (a real
// oidc-provider, test/support/oidc/provider.ts), read from a Secret and added by the proxy's token endpoint to the
// authorization_code requests it relays for `clientId`. The provider refuses client authentication without it.
// Translated from manifests and served by the real runtime; the secret is never in an answer or a log line.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { makeSigningKey, startIdpF, webClient, type OidcHarness } from '../support/oidc/provider.js';
import { GATEWAY_WEB, translatedIr } from './translated-ir.js';

const tenant = '7d1b6c2e-0000-4000-8000-00000000c5ef';
const clientId = 'gw-app';
const SECRET = 'mcp-app-secret~7f3e0d.never-shown';
const redirectUrl = 'http://127.0.0.1:9/callback';

function manifests(port: number, issuer: string, secretRef: string): string {
  return `${GATEWAY_WEB}---
apiVersion: v1
kind: Secret
metadata: {name: idp-app, namespace: default}
data: {clientSecret: ${Buffer.from(SECRET).toString('base64')}}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: tools, namespace: default}
spec:
  mcp:
    targets: [{name: t, static: {host: 127.0.0.1, port: ${port}, path: /mcp}}]
  policies:
    mcp:
      authentication:
        provider: IdpF
        issuer: "${issuer}"
        jwks: {url: "${issuer.replace(/\/v2\.0$/, '')}/discovery/v2.0/keys"}
        clientId: ${clientId}
        ${secretRef}
        resourceMetadata: {resource: "http://gw.test/tools"}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: tools, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /tools}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: tools}]}
`;
}

describe('backend.mcp.authentication.clientSecretRef', () => {
  let idp: OidcHarness;
  let fixture: HttpFixture;
  let runtime: ProxyRuntime;
  let base: string;
  const logged: string[] = [];
  const answers: string[] = [];

  const apply = async (secretRef: string) => {
    const snapshot = translatedIr(manifests(Number(new URL(fixture.url).port), idp.issuer, secretRef));
    await runtime.apply(snapshot);
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
    return JSON.stringify(snapshot);
  };

  /** Redeems a made-up code through the gateway: client authentication is judged before the code is. */
  const redeem = async () => {
    const res = await fetch(`${base}/.well-known/oauth-authorization-server/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: 'not-a-real-code',
        code_verifier: 'v'.repeat(43),
        redirect_uri: redirectUrl,
      }).toString(),
    });
    const text = await res.text();
    answers.push(text);
    return JSON.parse(text) as { error?: string };
  };

  beforeAll(async () => {
    idp = await startIdpF({
      tenantId: tenant,
      clientId,
      clients: [webClient(clientId, SECRET, redirectUrl)],
      key: await makeSigningKey('idpf-1'),
    });
    fixture = await startHttpFixture({ id: 'tools' });
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    runtime = new ProxyRuntime({ log: pino({ level: 'debug' }, sink), security: createRouteSecurity() });
  });

  afterAll(async () => {
    await runtime?.close();
    await fixture?.close();
    await idp?.close();
  });

  it('adds the client secret from the Secret to relayed token requests, so the provider accepts the client', async () => {
    const ir = await apply('clientSecretRef: {name: idp-app}');
    expect(ir).toContain('"clientSecret":"mcp-app-secret');
    expect(ir).not.toContain('policy_not_enforced');
    const answer = await redeem();
    // Client authentication passed; only the made-up code is refused.
    expect(answer.error).toBe('invalid_grant');
  });

  it('without clientSecretRef the provider refuses the client (the setting is what authenticates it)', async () => {
    await apply('');
    expect((await redeem()).error).toBe('invalid_client');
  });

  it('never shows the secret in an answer or a log line', () => {
    expect(answers.length).toBe(2);
    expect(logged.length).toBeGreaterThan(0);
    expect([...answers, ...logged].join('\n')).not.toContain(SECRET);
  });
});
