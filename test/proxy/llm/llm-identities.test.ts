// Per-request backend identities on LLM edges, through the same code as HTTP edges (auth/backend-identity.ts):
// an `ai` backend's provider and a GwModel exchange the client's validated token at a real oidc-provider
// (token-exchange grant registered through its extension point), a provider gets its token by cross-app
// access (ID-JAG at that provider, access token at a second) or a JWT the gateway signs, and the fake OpenAI
// upstream records what it received. GwModel `auth.location` and `auth.credentials` place the credentials
// where they say.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { importSPKI, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  crossAppAccessYaml,
  EXCHANGE_BASIC_SECRET,
  EXCHANGE_RAS_SECRET,
  ID_JAG_TYPE,
  JWT_BEARER,
  TOKEN_EXCHANGE,
  startExchangeServer,
  type ExchangeServer,
} from '../../support/oidc/token-exchange.js';
import { createRouteSecurity } from '../../../src/proxy/auth/route-security.js';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import {
  GATEWAY,
  gwModel,
  aiBackend,
  aiRoute,
  chat,
  modelRoute,
  secret,
  startLlmProxy,
  type LlmProxy,
} from './llm-harness.js';

const ORG_KEY = 'org-key-5e0c7a';
const PROJECT_KEY = 'project-key-91b2d4';
const MODEL_KEY = 'sk-model-cookie-0d3f';
const body = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }] });
const signerPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'sec1', format: 'pem' })
  .toString();

describe('backend identities on LLM providers and GwModels', () => {
  let x: ExchangeServer;
  let fake: FakeVendor;
  let proxy: LlmProxy;

  beforeAll(async () => {
    x = await startExchangeServer(undefined, { crossApp: true });
    fake = await startFakeVendor('openai');
    const at = `host: 127.0.0.1, port: ${fake.port}`;
    const basic = 'clientAuth: {clientId: gw-basic, secretRef: {name: as-basic}}';
    const exchange = (more = '') =>
      `oauthTokenExchange: {url: "${x.as.origin}", path: /as/token, audiences: [llm], ${basic}${more}}`;
    const jwks = JSON.stringify(JSON.stringify(x.userJwks));
    const jwtPolicy = (name: string, route: string) => `
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ${route}}]
  traffic: {jwtAuthentication: {providers: [{issuer: "${x.userIssuer}", jwks: {inline: ${jwks}}}]}}
`;
    const baseURL = `http://127.0.0.1:${fake.port}/v1`;
    proxy = await startLlmProxy(
      [
        GATEWAY,
        secret('as-basic', { clientSecret: EXCHANGE_BASIC_SECRET }),
        secret('project', { Authorization: PROJECT_KEY }),
        secret('ras-client', { clientSecret: EXCHANGE_RAS_SECRET }),
        secret('signer', { signingKey: signerPem }),
        aiRoute('xaa', '/xaa', 'xaa'),
        aiBackend('xaa', `openai: {}, ${at}`, `{auth: {${crossAppAccessYaml(x)}}}`),
        jwtPolicy('jwt-xaa', 'xaa'),
        aiRoute('signed', '/signed', 'signed'),
        aiBackend(
          'signed',
          `openai: {}, ${at}`,
          '{auth: {jwtSign: {signingKeyRef: {name: signer}, alg: ES256, kid: k-llm, claims: {iss: gw, aud: llm}}}}',
        ),
        aiRoute('llm', '/llm', 'exchanged'),
        aiBackend('exchanged', `openai: {}, ${at}`, `{auth: {${exchange()}}}`),
        aiRoute('down', '/down', 'down'),
        aiBackend(
          'down',
          `openai: {}, ${at}`,
          `{auth: {oauthTokenExchange: {url: "http://127.0.0.1:1", audiences: [llm], ${basic}}}}`,
        ),
        jwtPolicy('jwt-llm', 'llm'),
        jwtPolicy('jwt-down', 'down'),
        jwtPolicy('jwt-models', 'models'),
        modelRoute('models', '/m'),
        gwModel(
          'placed',
          `  provider: OpenAI
  baseURL: ${baseURL}
  policies:
    auth:
      ${exchange()}
      location: {header: {name: x-llm-token, prefix: "Token "}}
      credentials:
      - {key: ${ORG_KEY}, location: {header: {name: x-org-key}}}
      - {secretRef: {name: project}, location: {queryParameter: {name: project}}}`,
          'models',
        ),
        `
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: sts, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${Number(new URL(x.as.origin).port)}}
`,
        gwModel(
          'viaref',
          `  provider: OpenAI
  baseURL: ${baseURL}
  policies:
    auth:
      oauthTokenExchange: {backendRef: {group: gw.dev, kind: GwBackend, name: sts}, path: /as/token, audiences: [llm-ref], ${basic}}`,
          'models',
        ),
        gwModel(
          'cookie',
          `  provider: OpenAI\n  baseURL: ${baseURL}\n  policies: {auth: {key: ${MODEL_KEY}, location: {cookie: {name: llm_key}}}}`,
          'models',
        ),
      ].join(''),
      { security: createRouteSecurity() },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await fake?.close();
    await x?.close();
  });
  beforeEach(() => {
    fake.received.length = 0;
  });

  const issuedSince = (n: number) => x.grants.issued.slice(n);

  it('exchanges the validated client token for an ai provider and sends only the exchanged token', async () => {
    const alice = await x.userToken('alice');
    const before = x.grants.issued.length;
    const res = await chat(`${proxy.base}/llm/v1/chat/completions`, body('gpt-4o'), {
      authorization: `Bearer ${alice}`,
    });
    expect(res.status, res.text).toBe(200);
    const issued = issuedSince(before);
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ grant: TOKEN_EXCHANGE, clientId: 'gw-basic', sub: 'alice', audience: ['llm'] });
    expect(fake.received[0]?.headers.authorization).toBe(`Bearer ${issued[0]?.token}`);
    expect(JSON.stringify(fake.received[0]?.headers)).not.toContain(alice);
    // The second call of the same subject is served from the cache.
    const again = await chat(`${proxy.base}/llm/v1/chat/completions`, body('gpt-4o'), {
      authorization: `Bearer ${alice}`,
    });
    expect(again.status).toBe(200);
    expect(issuedSince(before)).toHaveLength(1);
    expect(fake.received[1]?.headers.authorization).toBe(`Bearer ${issued[0]?.token}`);
  });

  it('gets the provider its token by cross-app access: an ID-JAG for the ID token, then an access token', async () => {
    const mia = await x.userToken('mia');
    const before = x.grants.issued.length;
    const rasBefore = x.ras?.grants.issued.length ?? 0;
    const res = await chat(`${proxy.base}/xaa/v1/chat/completions`, body('gpt-4o'), { authorization: `Bearer ${mia}` });
    expect(res.status, res.text).toBe(200);
    const atIdp = x.grants.issued.slice(before);
    expect(atIdp).toHaveLength(1);
    expect(atIdp[0]).toMatchObject({ grant: TOKEN_EXCHANGE, clientId: 'gw-basic', sub: 'mia' });
    expect(atIdp[0]?.params.requested_token_type).toBe(ID_JAG_TYPE);
    const atRas = x.ras?.grants.issued.slice(rasBefore) ?? [];
    expect(atRas).toHaveLength(1);
    expect(atRas[0]).toMatchObject({ grant: JWT_BEARER, clientId: 'gw-at-ras', sub: 'mia' });
    expect(fake.received[0]?.headers.authorization).toBe(`Bearer ${atRas[0]?.token}`);
    expect(JSON.stringify(fake.received[0]?.headers)).not.toContain(mia);
  });

  it('sends the provider a JWT the gateway signed with the EC key from the Secret', async () => {
    const res = await chat(`${proxy.base}/signed/v1/chat/completions`, body('gpt-4o'));
    expect(res.status, res.text).toBe(200);
    const jwt = String(fake.received[0]?.headers.authorization).replace(/^Bearer /, '');
    const publicPem = createPublicKey(signerPem).export({ type: 'spki', format: 'pem' }).toString();
    const { payload, protectedHeader } = await jwtVerify(jwt, await importSPKI(publicPem, 'ES256'), {
      currentDate: new Date(1_800_000_000_000),
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: 'k-llm' });
    expect(payload).toMatchObject({ iss: 'gw', aud: 'llm' });
  });

  it('answers 502 when the token endpoint cannot be reached, and the provider never sees the client token', async () => {
    const bob = await x.userToken('bob');
    const res = await chat(`${proxy.base}/down/v1/chat/completions`, body('gpt-4o'), {
      authorization: `Bearer ${bob}`,
    });
    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({ error: { code: 'credential_unavailable' } });
    expect(res.text).not.toContain(bob);
    expect(fake.received).toHaveLength(0);
  });

  it('exchanges for a GwModel and places the token and the extra credentials at their locations', async () => {
    const carol = await x.userToken('carol');
    const before = x.grants.issued.length;
    const res = await chat(`${proxy.base}/m/v1/chat/completions`, body('placed'), { authorization: `Bearer ${carol}` });
    expect(res.status, res.text).toBe(200);
    const issued = issuedSince(before);
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ sub: 'carol', audience: ['llm'] });
    const got = fake.received[0];
    expect(got?.headers['x-llm-token']).toBe(`Token ${issued[0]?.token}`);
    expect(got?.headers.authorization).toBeUndefined();
    expect(got?.headers['x-org-key']).toBe(ORG_KEY);
    expect(got?.path).toBe(`/v1/chat/completions?project=${PROJECT_KEY}`);
    expect(JSON.stringify(got)).not.toContain(carol);
  });

  it("exchanges for a GwModel whose token endpoint is a backendRef, at that backend's address", async () => {
    const erin = await x.userToken('erin');
    const before = x.grants.issued.length;
    const res = await chat(`${proxy.base}/m/v1/chat/completions`, body('viaref'), { authorization: `Bearer ${erin}` });
    expect(res.status, res.text).toBe(200);
    const issued = issuedSince(before);
    expect(issued).toHaveLength(1);
    expect(issued[0]).toMatchObject({ sub: 'erin', clientId: 'gw-basic', audience: ['llm-ref'] });
    expect(fake.received[0]?.headers.authorization).toBe(`Bearer ${issued[0]?.token}`);
  });

  it("sends a GwModel's key at its location instead of the vendor's header", async () => {
    const dave = await x.userToken('dave');
    const res = await chat(`${proxy.base}/m/v1/chat/completions`, body('cookie'), { authorization: `Bearer ${dave}` });
    expect(res.status, res.text).toBe(200);
    expect(fake.received[0]?.headers.cookie).toBe(`llm_key=${MODEL_KEY}`);
    expect(fake.received[0]?.headers.authorization).toBeUndefined();
  });

  it('writes no token or key to the log or the metrics', async () => {
    const logs = proxy.logs.join('') + (await proxy.runtime.metrics.registry.metrics());
    const issued = [...x.grants.issued, ...(x.ras?.grants.issued ?? [])].map((i) => i.token);
    const signerLine = signerPem.split('\n')[1] ?? '';
    for (const t of [
      ...issued,
      ORG_KEY,
      PROJECT_KEY,
      MODEL_KEY,
      EXCHANGE_BASIC_SECRET,
      EXCHANGE_RAS_SECRET,
      signerLine,
    ])
      expect(logs).not.toContain(t);
  });
});
