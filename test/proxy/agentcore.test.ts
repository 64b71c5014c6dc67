// GwBackend `aws.agentCore` end to end: manifests → translated IR → the real proxy runtime → a loopback
// FAKE of the AgentCore runtime API (fake-agentcore.ts; AWS cannot be reached from tests) that checks
// every SigV4 signature itself. The runtime has the real route security (CEL authorization). GW_AGENTCORE_ENDPOINT points the proxy at the fake.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { agentCoreTargetOf, invocationPath } from '../../src/proxy/http/agentcore.js';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startFakeAgentCore, type FakeAgentCore } from './fake-agentcore.js';
import { ForwardProxy } from './forward-proxy.js';
import { log, rawRequest } from './http-forward-harness.js';
import { secret } from './llm/llm-harness.js';
import { GATEWAY_WEB, httpRoute, routeTrafficPolicy, translatedIr } from './translated-ir.js';

const ENV_KEYS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'GW_AGENTCORE_ENDPOINT'] as const;
const SECRET = 'agentcore-test-secret-key';
const SESSION_TOKEN = 'agentcore-test-session-token';
const arn = (id: string): string => `arn:aws:bedrock-agentcore:us-west-2:123456789012:runtime/${id}`;

/** A proxy runtime serving `manifests`, whose translation must refuse nothing (each setting is enforced). */
async function servedWithoutRefusals(manifests: string): Promise<{ runtime: ProxyRuntime; base: string }> {
  const ir = translatedIr(manifests);
  expect(ir.resources.flatMap((r) => r.route?.backends.flatMap((b) => b.refusals) ?? [])).toEqual([]);
  const runtime = new ProxyRuntime({ log });
  await runtime.apply(ir);
  return { runtime, base: `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}` };
}

/** Points the proxy at a fake on `port` with the test keys; the returned function puts the environment back. */
function agentCoreEnv(port: number): () => void {
  const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'AKIDAGENTCORE',
    AWS_SECRET_ACCESS_KEY: SECRET,
    AWS_SESSION_TOKEN: SESSION_TOKEN,
    GW_AGENTCORE_ENDPOINT: `http://127.0.0.1:${port}`,
  });
  return () => {
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  };
}

function agentRoute(
  name: string,
  runtime: string,
  extra: { qualifier?: string; rule?: string; traffic?: string; policies?: string } = {},
): string {
  return `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  aws: {agentCore: {agentRuntimeArn: '${arn(runtime)}'${extra.qualifier ? `, qualifier: ${extra.qualifier}` : ''}}}${
    extra.policies ? `\n  policies: ${extra.policies}` : ''
  }
${httpRoute(name, { rule: extra.rule })}${extra.traffic ? routeTrafficPolicy(name, extra.traffic) : ''}`;
}

const MANIFESTS =
  GATEWAY_WEB +
  agentRoute('echo', 'echo-1', {
    qualifier: 'DEFAULT',
    rule: '    filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-tenant, value: blue}]}}]\n',
  }) +
  agentRoute('stream', 'stream-1') +
  agentRoute('slow', 'slow-1', { rule: '    timeouts: {request: 500ms}\n' }) +
  agentRoute('flaky', 'flaky-1', { traffic: '{retry: {attempts: 2, backoff: 10ms, codes: [503]}}' }) +
  agentRoute('limited', 'echo-2', { traffic: '{rateLimit: {local: [{requests: 1, unit: Hours}]}}' }) +
  agentRoute('authz', 'echo-3', {
    traffic: `{authorization: {policy: {matchExpressions: ['request.headers["x-team"] == "blue"']}}}`,
  });

describe('AWS AgentCore backends', () => {
  let fake: FakeAgentCore;
  let runtime: ProxyRuntime;
  let base: string;
  let restoreEnv = (): void => undefined;

  beforeAll(async () => {
    fake = await startFakeAgentCore({ AKIDAGENTCORE: SECRET });
    restoreEnv = agentCoreEnv(fake.port);
    runtime = new ProxyRuntime({ log, security: createRouteSecurity() });
    await runtime.apply(translatedIr(MANIFESTS));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    fake?.release();
    await runtime?.close();
    await fake?.close();
    restoreEnv();
  });

  it('sends each request as a SigV4-signed InvokeAgentRuntime call and relays the answer', async () => {
    const payload = JSON.stringify({ prompt: 'hello agent' });
    const res = await rawRequest(`${base}/echo/anything?x=1`, {
      method: 'POST',
      body: payload,
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer client-own-token',
        'x-amz-security-token': 'client-token',
        'x-amz-content-sha256': 'client-hash',
        'x-amzn-bedrock-agentcore-runtime-session-id': 'session-0123456789-0123456789-0123456789',
      },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ runtime: 'echo-1', qualifier: 'DEFAULT', payload });
    expect(res.headers['x-amzn-bedrock-agentcore-runtime-session-id']).toBe('session-0123456789-0123456789-0123456789');
    const got = fake.received.at(-1);
    expect(got).toMatchObject({
      method: 'POST',
      arn: arn('echo-1'),
      qualifier: 'DEFAULT',
      body: payload,
      signatureValid: true,
      accessKeyId: 'AKIDAGENTCORE',
      url: `/runtimes/${encodeURIComponent(arn('echo-1'))}/invocations?qualifier=DEFAULT`,
    });
    expect(got?.scope).toMatch(/^\d{8}\/us-west-2\/bedrock-agentcore$/);
    // The client's own credentials never reach AWS; the route's header modifier does.
    expect(got?.headers.authorization).not.toContain('client-own-token');
    expect(got?.headers['x-amz-security-token']).toBe(SESSION_TOKEN);
    expect(got?.headers['x-amz-content-sha256']).toBeUndefined();
    expect(got?.headers['x-tenant']).toBe('blue');
    expect(got?.headers.host).toBe(`127.0.0.1:${fake.port}`);
  });

  it('streams an SSE answer back event by event', async () => {
    const res = await fetch(`${base}/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"prompt":"go"}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    // The fake holds its last event until released: the first must arrive before that.
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"part":1');
    fake.release();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toContain('"part":2');
    expect(fake.received.at(-1)?.signatureValid).toBe(true);
  });

  it('applies the route policy: retries signed again, local rate limit, CEL authorization', async () => {
    const body = '{"prompt":"again"}';
    const retried = await rawRequest(`${base}/flaky`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(retried.status).toBe(200);
    const tries = fake.received.filter((r) => r.arn === arn('flaky-1'));
    expect(tries.map((r) => [r.signatureValid, r.body])).toEqual([
      [true, body],
      [true, body],
    ]);

    expect((await rawRequest(`${base}/limited`, { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await rawRequest(`${base}/limited`, { method: 'POST', body: '{}' })).status).toBe(429);

    const before = fake.received.length;
    expect(
      (await rawRequest(`${base}/authz`, { method: 'POST', body: '{}', headers: { 'x-team': 'red' } })).status,
    ).toBe(403);
    expect(fake.received.length).toBe(before);
    expect(
      (await rawRequest(`${base}/authz`, { method: 'POST', body: '{}', headers: { 'x-team': 'blue' } })).status,
    ).toBe(200);
  });

  it('refuses a body above the route limit with 413 before calling AWS', async () => {
    const before = fake.received.length;
    const res = await rawRequest(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(2 * 1024 * 1024 + 1, 'a'),
    });
    expect(res.status).toBe(413);
    expect(fake.received.length).toBe(before);
  });

  it('answers 504 when the runtime does not answer within the route timeout', async () => {
    const res = await rawRequest(`${base}/slow`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body).error).toBe('gateway_timeout');
  });

  it('answers 500 naming the missing environment when the proxy has no AWS keys, and 503 when the endpoint is down', async () => {
    delete process.env.AWS_SECRET_ACCESS_KEY;
    try {
      const res = await rawRequest(`${base}/echo`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(500);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'credential_missing' });
      expect(res.body).toContain('AWS_SECRET_ACCESS_KEY');
      expect(res.body).not.toContain(SESSION_TOKEN);
    } finally {
      process.env.AWS_SECRET_ACCESS_KEY = SECRET;
    }
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    process.env.GW_AGENTCORE_ENDPOINT = `http://127.0.0.1:${port}`;
    try {
      const res = await rawRequest(`${base}/echo`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body).error).toBe('backend_unavailable');
    } finally {
      process.env.GW_AGENTCORE_ENDPOINT = `http://127.0.0.1:${fake.port}`;
    }
  });

  it('refuses a snapshot whose ARN names no AgentCore runtime, naming the backend and field', async () => {
    const other = new ProxyRuntime({ log });
    try {
      const snapshot = normalizeSnapshot({
        version: '1',
        resources: [
          {
            backend: {
              name: 'lambda',
              aws: { agentRuntimeArn: 'arn:aws:lambda:us-east-1:123456789012:function:f', qualifier: '' },
            },
          },
        ],
      });
      await expect(other.apply(snapshot)).rejects.toThrow(
        /Backend lambda: aws\.agentRuntimeArn: must be an AgentCore runtime ARN/,
      );
    } finally {
      await other.close();
    }
  });

  it('derives the public endpoint host from the ARN partition and region', () => {
    const cn = agentCoreTargetOf({
      agentRuntimeArn: 'arn:aws-cn:bedrock-agentcore:cn-north-1:123456789012:runtime/a-1',
      qualifier: 'prod',
    });
    expect(cn).toMatchObject({ host: 'bedrock-agentcore.cn-north-1.amazonaws.com.cn', region: 'cn-north-1' });
    expect(typeof cn === 'object' && invocationPath(cn)).toBe(
      '/runtimes/arn%3Aaws-cn%3Abedrock-agentcore%3Acn-north-1%3A123456789012%3Aruntime%2Fa-1/invocations?qualifier=prod',
    );
    expect(agentCoreTargetOf({ agentRuntimeArn: arn('b-2'), qualifier: '' })).toMatchObject({
      host: 'bedrock-agentcore.us-west-2.amazonaws.com',
    });
  });
});

describe('AWS AgentCore backends with http.version HTTP2', () => {
  let fake: FakeAgentCore;
  let proxy: ForwardProxy;
  let runtime: ProxyRuntime;
  let base: string;
  let restoreEnv = (): void => undefined;

  beforeAll(async () => {
    // An endpoint that speaks HTTP/2 by prior knowledge only: a call sent over HTTP/1.1 never reaches it.
    [fake, proxy] = await Promise.all([
      startFakeAgentCore({ AKIDAGENTCORE: SECRET }, { h2c: true }),
      ForwardProxy.start(),
    ]);
    restoreEnv = agentCoreEnv(fake.port);
    const manifests =
      GATEWAY_WEB +
      agentRoute('h2', 'echo-h2', { policies: '{http: {version: HTTP2}}' }) +
      agentRoute('h2stream', 'stream-h2', { policies: '{http: {version: HTTP2}}' }) +
      agentRoute('h1', 'echo-h1') +
      agentRoute('h2tunnel', 'echo-h2tunnel', {
        policies: `{http: {version: HTTP2}, tunnel: {url: "http://${proxy.address}"}}`,
      });
    ({ runtime, base } = await servedWithoutRefusals(manifests));
  });

  afterAll(async () => {
    fake?.release();
    await runtime?.close();
    await Promise.all([fake?.close(), proxy?.stop()]);
    restoreEnv();
  });

  it('sends the signed InvokeAgentRuntime call over HTTP/2 (h2c on an http endpoint), the signature covering :authority', async () => {
    const payload = JSON.stringify({ prompt: 'over h2' });
    const res = await rawRequest(`${base}/h2`, {
      method: 'POST',
      body: payload,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ runtime: 'echo-h2', qualifier: null, payload });
    expect(fake.received.at(-1)).toMatchObject({ httpVersion: '2.0', signatureValid: true, body: payload });
  });

  it('streams an SSE answer over HTTP/2 event by event', async () => {
    const res = await fetch(`${base}/h2stream`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    // The fake holds its last event until released: the first must arrive before that.
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"part":1');
    fake.release();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toContain('"part":2');
    expect(fake.received.at(-1)).toMatchObject({ arn: arn('stream-h2'), httpVersion: '2.0', signatureValid: true });
  });

  it('opens the HTTP/2 session through the tunnel by CONNECT (Auto mode never sends HTTP/2 in absolute form)', async () => {
    const payload = '{"prompt":"through the tunnel"}';
    const res = await rawRequest(`${base}/h2tunnel`, { method: 'POST', body: payload });
    expect(res.status, res.body).toBe(200);
    expect(fake.received.at(-1)).toMatchObject({
      arn: arn('echo-h2tunnel'),
      httpVersion: '2.0',
      signatureValid: true,
      body: payload,
    });
    expect(proxy.handled).toContainEqual({ method: 'CONNECT', target: `127.0.0.1:${fake.port}` });
  });

  it('fails without the setting: HTTP/1.1 is all the call would speak', async () => {
    const res = await rawRequest(`${base}/h1`, { method: 'POST', body: '{}' });
    expect(res.status).toBeGreaterThanOrEqual(502);
    expect(fake.received.some((r) => r.arn === arn('echo-h1'))).toBe(false);
  });
});

const PROXY_PASSWORD = 'agentcore-proxy-Pa55';

/** Two AgentCore runtimes behind one route, each with passive health: `down-*` answers 503 to every call. */
function pooledRoute(name: string, runtimes: string[], health: string): string {
  const backends = runtimes
    .map(
      (r) => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${r}, namespace: default}
spec:
  aws: {agentCore: {agentRuntimeArn: '${arn(r)}'}}
  policies: {health: ${health}}
`,
    )
    .join('');
  return `${backends}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /${name}}}]
    backendRefs: [${runtimes.map((r) => `{group: gw.dev, kind: GwBackend, name: ${r}}`).join(', ')}]
`;
}

describe('AWS AgentCore backends with backend.tunnel, backend.tcp and backend.health', () => {
  let fake: FakeAgentCore;
  let proxy: ForwardProxy;
  let hole: ForwardProxy;
  let runtime: ProxyRuntime;
  let base: string;
  let restoreEnv = (): void => undefined;

  beforeAll(async () => {
    [fake, proxy, hole] = await Promise.all([
      startFakeAgentCore({ AKIDAGENTCORE: SECRET }),
      ForwardProxy.start({ user: 'gw', password: PROXY_PASSWORD }),
      ForwardProxy.start({ blackhole: true }),
    ]);
    restoreEnv = agentCoreEnv(fake.port);
    const via = (mode: string, auth = 'proxy-auth') =>
      `{tunnel: {url: "http://${proxy.address}", mode: ${mode}, secretRef: {name: ${auth}}}}`;
    const manifests =
      GATEWAY_WEB +
      secret('proxy-auth', { username: 'gw', password: PROXY_PASSWORD }) +
      secret('wrong-auth', { username: 'gw', password: `not-${PROXY_PASSWORD}` }) +
      agentRoute('connect', 'echo-connect', { policies: via('Connect') }) +
      agentRoute('auto', 'echo-auto', { policies: via('Auto') }) +
      agentRoute('refused', 'echo-refused', { policies: via('Connect', 'wrong-auth') }) +
      agentRoute('unanswered', 'echo-unanswered', {
        policies: `{tunnel: {url: "http://${hole.address}", mode: Connect}, tcp: {connectTimeout: 300ms, keepalive: {time: 30s}}}`,
      }) +
      pooledRoute('pool', ['down-1', 'echo-well'], '{consecutiveFailures: 2, ejectionDuration: 60s}');
    ({ runtime, base } = await servedWithoutRefusals(manifests));
  });

  afterAll(async () => {
    await runtime?.close();
    await Promise.all([fake?.close(), proxy?.stop(), hole?.stop()]);
    restoreEnv();
  });

  it('sends the signed call through the forward proxy by CONNECT, with its credential', async () => {
    const payload = '{"prompt":"via egress"}';
    const res = await rawRequest(`${base}/connect`, { method: 'POST', body: payload });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ runtime: 'echo-connect', payload });
    expect(fake.received.at(-1)).toMatchObject({ arn: arn('echo-connect'), signatureValid: true, body: payload });
    expect(fake.received.at(-1)?.headers['proxy-authorization']).toBeUndefined();
    expect(proxy.handled).toContainEqual({ method: 'CONNECT', target: `127.0.0.1:${fake.port}` });
  });

  it('sends it in absolute form in Auto mode to a plaintext endpoint, the signature still valid', async () => {
    const res = await rawRequest(`${base}/auto`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(fake.received.at(-1)).toMatchObject({ arn: arn('echo-auto'), signatureValid: true });
    const url = `http://127.0.0.1:${fake.port}/runtimes/${encodeURIComponent(arn('echo-auto'))}/invocations`;
    expect(proxy.handled.map((h) => h.target)).toContain(url);
  });

  it('answers 502 when the forward proxy refuses the tunnel, nothing reaching AWS and no credential in the body', async () => {
    const res = await rawRequest(`${base}/refused`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(502);
    expect(res.body).toContain('refused the tunnel with status 407');
    expect(res.body).not.toContain(PROXY_PASSWORD);
    expect(fake.received.some((r) => r.arn === arn('echo-refused'))).toBe(false);
  });

  it('bounds the tunnel set-up by tcp.connectTimeout: 503 well before the 10s default', async () => {
    const started = Date.now();
    const res = await rawRequest(`${base}/unanswered`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(fake.received.some((r) => r.arn === arn('echo-unanswered'))).toBe(false);
  });

  it('ejects a failing runtime after consecutiveFailures: the rest of the load reaches the healthy one', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 24; i++)
      statuses.push((await rawRequest(`${base}/pool`, { method: 'POST', body: '{}' })).status);
    const sick = fake.received.filter((r) => r.arn === arn('down-1')).length;
    expect(sick).toBeLessThanOrEqual(2);
    expect(statuses.filter((s) => s !== 200).length).toBe(sick);
    expect(fake.received.filter((r) => r.arn === arn('echo-well')).length).toBe(24 - sick);
  });
});
