// A2A agents behind the gateway (docs/proxy.md "A2A backends"): a real agent built on the official JavaScript
// SDK, reachable by the client only through the gateway (the client's fetch refuses the agent's own address),
// and the SDK's own client given nothing but the gateway's card URL. The card it reads points at the gateway,
// and send, stream, get and cancel complete with API-key authentication and CEL `a2a.*` authorization on;
// refusals are JSON-RPC errors; 0.3 method names are the 1.0 methods to policy; every call is counted by method
// and traced with the RPC conventions (a real OpenTelemetry Collector). Manifests translated as the controller does.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startA2aAgent, type A2aAgent } from '../fixtures/a2a-agent.js';
import { rawRequest } from './http-forward-harness.js';
import { httpsManifests } from './https-manifests.js';
import { attrs, Collector } from './otel-collector.js';
import { GATEWAY_WEB, translatedIr } from './translated-ir.js';

const writerKey = 'sk-writer-0123456789';
const readerKey = 'sk-reader-9876543210';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** An HTTPRoute `name` at /`name`, its prefix rewritten to / on the way to the agent, with an optional GwPolicy. */
function route(name: string, traffic?: string): string {
  const r = `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /${name}}}]
    filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /}}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: agent}]
`;
  if (!traffic) return r;
  return `${r}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ${name}}]
  traffic: ${traffic}
`;
}

function manifests(agentPort: number, collectorUrl: string): string {
  const keys = '{secretRef: {name: api-keys}}';
  const writerOrReads =
    'apiKey.group == "writer" || (apiKey.group == "reader" && a2a.method in ["GetTask", "SubscribeToTask"])';
  return [
    GATEWAY_WEB,
    `
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: agent, namespace: default}
spec:
  a2a: {host: 127.0.0.1, port: ${agentPort}}
`,
    `
apiVersion: v1
kind: Secret
metadata: {name: api-keys, namespace: default}
data:
  writer: ${b64(JSON.stringify({ key: writerKey, metadata: { group: 'writer' } }))}
  reader: ${b64(JSON.stringify({ keyHash: `sha256:${createHash('sha256').update(readerKey).digest('hex')}`, metadata: { group: 'reader' } }))}
`,
    `
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: telemetry, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend:
    tracing: {url: "${collectorUrl}"}
`,
    route('echo'),
    route(
      'guarded',
      `{apiKeyAuthentication: ${keys}, authorization: {policy: {matchExpressions: ['${writerOrReads}']}}}`,
    ),
    route(
      'nocancel',
      `{authorization: {action: Deny, policy: {matchExpressions: ['a2a.method == "CancelTask" || a2a.taskId == "sealed"']}}}`,
    ),
  ].join('---\n');
}

let agent: A2aAgent;
let collector: Collector;
let runtime: ProxyRuntime;
let base: string;
/** URLs the clients tried that were not the gateway's: must stay empty. */
const refused: string[] = [];

/** The client's fetch: the gateway only (the agent's own address is blocked), with the caller's key. */
function gatewayFetch(key?: string): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== base) {
      refused.push(url.href);
      throw new Error(`blocked: ${url.href} is not the gateway`);
    }
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (key) headers.set('authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
}

/** The SDK client as a user makes it: from the card URL the gateway gives, nothing else. */
function clientAt(path: string, key?: string): Promise<Client> {
  const fetchImpl = gatewayFetch(key);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(`${base}${path}/`);
}

/** A message; "wait" starts a task that works until cancelled, so it is sent to return at once. */
const message = (text: string): SendMessageRequest =>
  SendMessageRequest.fromJSON({
    message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] },
    ...(text === 'wait' ? { configuration: { returnImmediately: true } } : {}),
  });

/** A raw JSON-RPC call through the gateway (0.3 names, refusals the SDK would hide). */
async function rpc(
  path: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  body: { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };
}> {
  const res = await fetch(`${base}${path}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return { status: res.status, body: (await res.json()) as never };
}

beforeAll(async () => {
  agent = await startA2aAgent();
  collector = await Collector.start();
  runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
  await runtime.apply(translatedIr(manifests(agent.port, collector.url)));
  base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
});

afterAll(async () => {
  await runtime?.close();
  await agent?.close();
  await collector?.stop();
});

describe('agent cards through the gateway', () => {
  it('points every JSON-RPC interface at the gateway and the route, drops gRPC and the signature, keeps other URLs', async () => {
    const res = await fetch(`${base}/echo/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, unknown>;
    expect(card.supportedInterfaces).toEqual([
      { url: `${base}/echo/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${base}/echo/`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ]);
    expect(card).not.toHaveProperty('signatures');
    expect(card.provider).toEqual({ url: 'https://provider.example/', organization: 'Gw tests' });
    expect(card.documentationUrl).toBe('https://docs.example/echo');
    expect(JSON.stringify(card)).not.toContain(String(agent.port));
  });

  it("rewrites a 0.3 card's url and interfaces alike", async () => {
    const card = (await (await fetch(`${base}/echo/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card.protocolVersion).toBe('0.3');
    expect(card.url).toBe(`${base}/echo/`);
    expect(card.preferredTransport).toBe('JSONRPC');
    expect(JSON.stringify(card)).not.toContain(String(agent.port));
  });

  it('takes the origin from the Host the client used, and refuses a Host that is no host name', async () => {
    // fetch will not send another Host; node:http will.
    const res = await rawRequest(`${base}/echo/.well-known/agent-card.json`, {
      headers: { host: 'agents.example.com:8443', 'a2a-version': '1.0' },
    });
    const card = JSON.parse(res.body) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual([
      'http://agents.example.com:8443/echo/',
      'http://agents.example.com:8443/echo/',
    ]);
    const bad = await rawRequest(`${base}/echo/.well-known/agent-card.json`, { headers: { host: 'a"b' } });
    expect([bad.status, JSON.parse(bad.body).error]).toEqual([400, 'invalid_host']);
  });

  it('rewrites the extended card a JSON-RPC GetExtendedAgentCard returns', async () => {
    const { status, body } = await rpc('/echo', 'GetExtendedAgentCard', {}, { 'a2a-version': '1.0' });
    expect(status).toBe(200);
    const card = body.result as { supportedInterfaces: { url: string }[]; signatures?: unknown };
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual([`${base}/echo/`, `${base}/echo/`]);
    expect(card.signatures).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain(String(agent.port));
  });
});

describe('an A2A SDK client that knows only the gateway', () => {
  it('sends, streams, gets and cancels with authentication and authorization on, never reaching the agent directly', async () => {
    const client = await clientAt('/guarded', writerKey);
    const sent = (await client.sendMessage(message('hello'))) as Task;
    expect(sent.status?.state).toBe(3); // TASK_STATE_COMPLETED
    expect(JSON.stringify(sent.artifacts)).toContain('echo: hello');

    const events: unknown[] = [];
    for await (const event of client.sendMessageStream(message('streamed'))) events.push(event);
    expect(JSON.stringify(events)).toContain('echo: streamed');
    expect(events.length).toBeGreaterThan(1);

    const got = await client.getTask({ tenant: '', id: sent.id });
    expect(got.id).toBe(sent.id);

    const waiting = (await client.sendMessage(message('wait'))) as Task;
    expect(waiting.status?.state).toBe(2); // TASK_STATE_WORKING
    const canceled = await client.cancelTask({ tenant: '', id: waiting.id, metadata: undefined });
    expect(canceled.status?.state).toBe(5); // TASK_STATE_CANCELED

    expect(refused).toEqual([]);
  });

  it('refuses a method the rules do not allow with a JSON-RPC error in the call, and allows the one they do', async () => {
    const writer = await clientAt('/guarded', writerKey);
    const task = (await writer.sendMessage(message('for the reader'))) as Task;
    const reader = await clientAt('/guarded', readerKey);
    expect((await reader.getTask({ tenant: '', id: task.id })).id).toBe(task.id);
    await expect(reader.sendMessage(message('not allowed'))).rejects.toThrow(/does not allow/);

    const refusal = await rpc(
      '/guarded',
      'SendMessage',
      { message: { messageId: 'x', role: 'ROLE_USER', parts: [] } },
      {
        authorization: `Bearer ${readerKey}`,
      },
    );
    expect(refusal.status).toBe(403);
    expect(refusal.body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, data: { error: 'forbidden' } },
    });
  });

  it('reads 0.3 method names as their 1.0 methods: a Deny on CancelTask refuses tasks/cancel too', async () => {
    const client = await clientAt('/nocancel');
    const waiting = (await client.sendMessage(message('wait'))) as Task;
    await expect(client.cancelTask({ tenant: '', id: waiting.id, metadata: undefined })).rejects.toThrow(
      /does not allow/,
    );
    const legacy = await rpc('/nocancel', 'tasks/cancel', { id: waiting.id });
    expect(legacy.status).toBe(403);
    expect(legacy.body.error?.data).toEqual({ error: 'forbidden' });
    // The task id is read from 0.3 and 1.0 calls alike.
    expect((await rpc('/nocancel', 'tasks/get', { id: 'sealed' })).status).toBe(403);
    const sealed = await rpc('/nocancel', 'GetTask', { id: 'sealed' }, { 'a2a-version': '1.0' });
    expect(sealed.status).toBe(403);
    expect((await rpc('/nocancel', 'GetTask', { id: 'open' }, { 'a2a-version': '1.0' })).status).toBe(200);
    // Other 0.3 methods go through: message/send answers with a 0.3-shaped task.
    const sent = await rpc('/nocancel', 'message/send', {
      message: { kind: 'message', messageId: 'm03', role: 'user', parts: [{ kind: 'text', text: 'old' }] },
    });
    expect(sent.status).toBe(200);
    expect(JSON.stringify(sent.body.result)).toContain('echo: old');
  });

  it('refuses on a route with rules what it cannot read as an A2A call, and a body that is not JSON-RPC', async () => {
    const get = await fetch(`${base}/guarded/tasks/x`, { headers: { authorization: `Bearer ${writerKey}` } });
    expect(get.status).toBe(403);
    const notRpc = await fetch(`${base}/guarded/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writerKey}`, 'content-type': 'application/json' },
      body: '[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]',
    });
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });
});

describe('A2A telemetry', () => {
  it('counts calls by their 1.0 method name, whichever name the client used', async () => {
    const count = async (method: string) => {
      const text = await runtime.metrics.registry.metrics();
      return Number(new RegExp(`^gw_a2a_requests_total\\{method="${method}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    };
    const before = await count('GetTask');
    await rpc('/echo', 'tasks/get', { id: 'missing' });
    await rpc('/echo', 'GetTask', { id: 'missing' }, { 'a2a-version': '1.0' });
    expect((await count('GetTask')) - before).toBe(2);
  });

  it('traces a call with the RPC semantic conventions on the server span and a forward span named for the method', async () => {
    const trace = 'a2a92f3577b34da6a3ce929d0e0e4736';
    await rpc(
      '/echo',
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: 'traced',
          role: 'user',
          contextId: 'ctx-1',
          parts: [{ kind: 'text', text: 't' }],
        },
      },
      { traceparent: `00-${trace}-00f067aa0ba902b7-01` },
    );
    const forward = await collector.waitFor(
      () => collector.spans().find((s) => s.traceId === trace && s.name === 'SendMessage'),
      'the SendMessage span',
    );
    expect(attrs(forward.attributes)).toMatchObject({
      'rpc.system.name': 'jsonrpc',
      'rpc.method': 'SendMessage',
      'rpc.method_original': 'message/send',
      'rpc.jsonrpc.request_id': '7',
      'gw.a2a.context_id': 'ctx-1',
    });
    const server = collector.spans().find((s) => s.spanId === forward.parentSpanId);
    expect(attrs(server?.attributes)['rpc.method']).toBe('SendMessage');
  });

  it('names the span of a method A2A does not define jsonrpc with rpc.method _OTHER, so clients cannot mint span names', async () => {
    const trace = 'a2a0c5e1d4b34da6a3ce929d0e0e4736';
    const minted = `tasks/minted-${Date.now()}`;
    await rpc('/echo', minted, {}, { traceparent: `00-${trace}-00f067aa0ba902b7-01` });
    const forward = await collector.waitFor(
      () => collector.spans().find((s) => s.traceId === trace && s.kind === 3),
      'the forward span of the unknown method',
    );
    expect(forward.name).toBe('jsonrpc');
    expect(attrs(forward.attributes)).toMatchObject({ 'rpc.method': '_OTHER', 'rpc.method_original': minted });
    const server = collector.spans().find((s) => s.spanId === forward.parentSpanId);
    expect(attrs(server?.attributes)).toMatchObject({ 'rpc.method': '_OTHER', 'rpc.method_original': minted });
    expect(collector.spans().some((s) => s.name.includes(minted))).toBe(false);
  });
});

describe('A2A streams on drain', () => {
  it('ends a SubscribeToTask stream when the proxy drains, so the client resubscribes elsewhere; the drain does not wait for it', async () => {
    // A runtime of its own: draining stops its listener.
    const own = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
    await own.apply(translatedIr(manifests(agent.port, collector.url)));
    const ownBase = `http://127.0.0.1:${Object.values(own.boundPorts())[0]}`;
    try {
      const send = await fetch(`${ownBase}/echo/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: { messageId: 'drain', role: 'ROLE_USER', parts: [{ text: 'wait' }] },
            configuration: { returnImmediately: true },
          },
        }),
      });
      const task = ((await send.json()) as { result: { task: { id: string } } }).result.task;
      const stream = await fetch(`${ownBase}/echo/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: task.id } }),
      });
      expect(stream.headers.get('content-type')).toContain('text/event-stream');
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
      await reader.read(); // the task as it stands: the stream is open
      const outcome = await own.drain({ minMs: 0, maxMs: 10_000 });
      for (let r = await reader.read(); !r.done; r = await reader.read());
      expect(outcome).toBe('drained');
    } finally {
      await own.close();
    }
  });
});

describe('agent cards on an HTTPS listener', () => {
  it('gives the card https URLs: the scheme is the listener TLS, not the agent’s', async () => {
    const manifests = httpsManifests(agent.port, '{}').replace(
      `static: {host: 127.0.0.1, port: ${agent.port}}`,
      `a2a: {host: 127.0.0.1, port: ${agent.port}}`,
    );
    const own = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
    await own.apply(translatedIr(manifests));
    const port = Object.values(own.boundPorts())[0];
    try {
      const ca = readFileSync(path.join(import.meta.dirname, 'tls-testdata', 'ca.crt'));
      const body = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port,
            servername: 'a.example.test',
            ca,
            path: '/.well-known/agent-card.json',
            headers: { host: `a.example.test:${port}`, 'a2a-version': '1.0' },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString()));
          },
        );
        req.on('error', reject).end();
      });
      const card = JSON.parse(body) as { supportedInterfaces: { url: string }[] };
      expect(card.supportedInterfaces.map((i) => i.url)).toEqual([
        `https://a.example.test:${port}/`,
        `https://a.example.test:${port}/`,
      ]);
    } finally {
      await own.close();
    }
  });
});
