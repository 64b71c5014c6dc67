// GwModel `policies.authorization` ("authorization per model") through a real listener: the model's CEL
// rules (jwt.*, llmRequest.*) decide with the same code as GwPolicy traffic.authorization; a denied
// request gets 403 and never reaches the provider; a virtual model sends a request only to targets whose
// own rules allow it; a model whose rule does not compile is refused (503 policy_not_enforced, issue 31).
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { translatedIr } from '../translated-ir.js';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { GATEWAY, chat, gwModel, modelRoute } from './llm-harness.js';

const issuer = 'https://idp.models.example';
const body = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

describe('GwModel policies.authorization', () => {
  let vendor: FakeVendor;
  let runtime: ProxyRuntime;
  let url: string;
  let signer: CryptoKey;
  const token = (tier: string) =>
    new SignJWT({ tier })
      .setProtectedHeader({ alg: 'RS256', kid: 'k' })
      .setIssuer(issuer)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(signer);
  const ask = async (model: string, tier: string, extra: Record<string, unknown> = {}) =>
    chat(url, body(model, extra), { authorization: `Bearer ${await token(tier)}` });

  beforeAll(async () => {
    vendor = await startFakeVendor('openai');
    const keys = await generateKeyPair('RS256');
    signer = keys.privateKey;
    const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k', alg: 'RS256' }] });
    const provider = `  provider: OpenAI\n  baseURL: http://127.0.0.1:${vendor.port}/v1`;
    const rules = (action: string, ...expressions: string[]) =>
      `\n  policies:\n    authorization: {action: ${action}, policy: {matchExpressions: [${expressions.map((e) => `'${e}'`).join(', ')}]}}`;
    const manifests = `${GATEWAY}${modelRoute('llm', '/v1')}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: jwt, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: llm}]
  traffic:
    jwtAuthentication: {providers: [{issuer: '${issuer}', jwks: {inline: '${jwks}'}}]}
${gwModel('open', provider)}${gwModel('gold-only', provider + rules('Allow', 'jwt.tier == "gold"'))}${gwModel(
      'no-streaming',
      provider + rules('Deny', 'has(llmRequest.stream) && llmRequest.stream == true'),
    )}${gwModel('restricted', `  visibility: Internal\n${provider}${rules('Allow', 'jwt.tier == "gold"')}`)}${gwModel(
      'internal-open',
      `  visibility: Internal\n${provider}`,
    )}${gwModel(
      'smart',
      `  virtualModel:
    failover:
      targets:
      - {modelRef: {name: restricted}, model: gold-large, priority: 0}
      - {modelRef: {name: internal-open}, model: open-small, priority: 10}`,
    )}${gwModel('gold-virtual', `  virtualModel:\n    failover:\n      targets:\n      - {modelRef: {name: restricted}, model: gold-large, priority: 0}`)}${gwModel(
      'broken',
      provider + rules('Allow', 'jwt.tier ==='),
    )}`;
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
    await runtime.apply(translatedIr(manifests, 'default/web', { enableModels: true }, ['GwModel default/broken']));
    url = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}/v1/chat/completions`;
  });
  afterAll(async () => {
    await runtime?.close();
    await vendor?.close();
  });
  beforeEach(() => {
    vendor.received.length = 0;
  });

  it("serves a request the model's jwt rule allows and answers 403 to one it does not, never calling the provider", async () => {
    expect((await ask('gold-only', 'gold')).status).toBe(200);
    expect(vendor.received).toHaveLength(1);
    const denied = await ask('gold-only', 'silver');
    expect(denied.status).toBe(403);
    expect(denied.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect(vendor.received).toHaveLength(1);
    // A model without rules of its own serves both.
    expect((await ask('open', 'silver')).status).toBe(200);
  });

  it('denies by a rule over the chat request (llmRequest)', async () => {
    expect((await ask('no-streaming', 'silver')).status).toBe(200);
    expect((await ask('no-streaming', 'silver', { stream: true })).status).toBe(403);
    expect(vendor.received).toHaveLength(1);
  });

  it("sends a virtual model's request only to targets whose own rules allow it", async () => {
    expect((await ask('smart', 'gold')).status).toBe(200);
    expect(vendor.received[0]?.body.model).toBe('gold-large');
    expect((await ask('smart', 'silver')).status).toBe(200);
    expect(vendor.received[1]?.body.model).toBe('open-small');
    // No target allows it: the target's refusal is the answer, and nothing is called.
    expect((await ask('gold-virtual', 'silver')).status).toBe(403);
    expect(vendor.received).toHaveLength(2);
  });

  it('refuses a model whose rule does not compile with 503 policy_not_enforced instead of serving it unchecked', async () => {
    const res = await ask('broken', 'gold');
    expect(res.status).toBe(503);
    expect(res.json()).toMatchObject({ error: { code: 'policy_not_enforced' } });
    expect(vendor.received).toHaveLength(0);
  });
});
