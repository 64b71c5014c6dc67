// backend.auth.aws on an `aws.agentCore` edge: InvokeAgentRuntime calls are signed with the keys of
// the Secret it names, not the proxy's environment. Manifests → translated IR → the real runtime → the
// loopback FAKE of AgentCore (fake-agentcore.ts; AWS cannot be reached from tests), which verifies
// every SigV4 signature against the keys it accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startFakeAgentCore, type FakeAgentCore } from './fake-agentcore.js';
import { log, rawRequest } from './http-forward-harness.js';
import { GATEWAY_WEB, translatedIr } from './translated-ir.js';

const ENV_KEYS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'GW_AGENTCORE_ENDPOINT'] as const;
const SECRET = 'secret-key-from-the-secret';
const ARN = 'arn:aws:bedrock-agentcore:eu-west-1:123456789012:runtime/echo-keys';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

const MANIFESTS = `${GATEWAY_WEB}---
apiVersion: v1
kind: Secret
metadata: {name: agent-keys, namespace: default}
data: {accessKey: ${b64('AKIDFROMSECRET')}, secretKey: ${b64(SECRET)}}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: agent, namespace: default}
spec:
  aws: {agentCore: {agentRuntimeArn: '${ARN}'}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: agent, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - backendRefs: [{group: gw.dev, kind: GwBackend, name: agent}]
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: agent-keys, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: agent}]
  backend:
    auth: {aws: {secretRef: {name: agent-keys}}}
`;

describe('backend.auth.aws on an AgentCore backend', () => {
  let fake: FakeAgentCore;
  let runtime: ProxyRuntime;
  let base: string;
  const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

  beforeAll(async () => {
    fake = await startFakeAgentCore({ AKIDFROMSECRET: SECRET });
    // No AWS keys in the environment: only the Secret's can sign.
    for (const k of ENV_KEYS) delete process.env[k];
    process.env.GW_AGENTCORE_ENDPOINT = `http://127.0.0.1:${fake.port}`;
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(MANIFESTS));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await fake?.close();
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it('signs the InvokeAgentRuntime call with the Secret keys, the region from the ARN', async () => {
    const res = await rawRequest(`${base}/ask`, {
      method: 'POST',
      body: '{"prompt":"hi"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    const got = fake.received.at(-1);
    expect(got).toMatchObject({ signatureValid: true, accessKeyId: 'AKIDFROMSECRET', arn: ARN });
    expect(got?.scope).toMatch(/^\d{8}\/eu-west-1\/bedrock-agentcore$/);
  });
});
