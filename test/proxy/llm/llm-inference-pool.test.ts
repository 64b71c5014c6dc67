// GwModel custom.backendRef to an InferencePool (Gateway API Inference Extension), through the proxy. Two
// loopback OpenAI stand-ins (fake-vendors.ts) play the pool's model servers: one Pod stand-in at 127.0.0.1
// with two targetPorts, one per server. The endpoint picker is the real test ext_proc server (test/extproc,
// `-epp` mode), reached through its Service's EndpointSlice at 127.0.0.1; it is told to choose the second
// server, so a proxy that ignored it and took turns would send half the requests to the first. A second picker
// names a closed port of the pool first and its choice as the fallback (metadata
// x-gateway-destination-endpoint-fallback): served only if the proxy reads that key.
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExtProcServer, bodyOf, headerOf } from '../ext/ext-proc-server.js';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { GATEWAY, chat, gwModel, modelRoute, startLlmProxy, type LlmProxy } from './llm-harness.js';

const body = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }] });

/** The InferencePool `name` over Pod label `app: name`, its Pod stand-in at 127.0.0.1 and the GwModel `name`. */
function pool(name: string, ports: number[], picker?: { port: number; failureMode?: string }): string {
  const epp = picker
    ? `\n  endpointPickerRef: {name: ${name}-epp, port: {number: 9002}${picker.failureMode ? `, failureMode: ${picker.failureMode}` : ''}}`
    : '';
  const eppObjects = picker
    ? `
---
apiVersion: v1
kind: Service
metadata: {name: ${name}-epp, namespace: default}
spec: {ports: [{name: grpc, port: 9002}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: ${name}-epp-x1, namespace: default, labels: {kubernetes.io/service-name: ${name}-epp}}
addressType: IPv4
ports: [{name: grpc, port: ${picker.port}}]
endpoints: [{addresses: [127.0.0.1], conditions: {ready: true}}]`
    : '';
  return `
---
apiVersion: inference.networking.k8s.io/v1
kind: InferencePool
metadata: {name: ${name}, namespace: default}
spec:
  selector: {matchLabels: {app: ${name}}}
  targetPorts: [${ports.map((p) => `{number: ${p}}`).join(', ')}]${epp}
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}-0, namespace: default, labels: {app: ${name}}}
spec: {containers: [{name: server, image: vllm}]}
status: {podIP: 127.0.0.1, conditions: [{type: Ready, status: "True"}]}${eppObjects}
${gwModel(
  name,
  `  match: {model: ${name}-*}
  provider: Custom
  baseURL: http://unused.invalid/v1
  custom:
    backendRef: {group: inference.networking.k8s.io, kind: InferencePool, name: ${name}}
    formats: [{format: Completions}]`,
)}`;
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('GwModel backendRef to an InferencePool', () => {
  let a: FakeVendor, b: FakeVendor;
  let epp: ExtProcServer;
  let fallbackEpp: ExtProcServer;
  let dead: number;
  let proxy: LlmProxy;

  beforeAll(async () => {
    [a, b] = await Promise.all([startFakeVendor('openai'), startFakeVendor('openai')]);
    epp = await ExtProcServer.start(['-epp', '-epp-prefer', `127.0.0.1:${b.port}`, '-epp-model', 'chosen-by-epp']);
    dead = await closedPort();
    fallbackEpp = await ExtProcServer.start([
      '-epp',
      '-epp-prefer',
      `127.0.0.1:${b.port}`,
      '-epp-primary',
      `127.0.0.1:${dead}`,
    ]);
    const unreachable = 1; // nothing listens on port 1 of loopback
    const fallback = pool('fallback', [dead, b.port], { port: Number(new URL(fallbackEpp.url).port) });
    proxy = await startLlmProxy(
      `${GATEWAY}${modelRoute('llm', '/v1')}${pool('picked', [a.port, b.port], { port: Number(new URL(epp.url).port) })}${pool('turns', [a.port, b.port])}${pool('lost', [a.port], { port: unreachable })}${pool('open', [a.port, b.port], { port: unreachable, failureMode: 'FailOpen' })}${fallback}`,
      {},
      { enableInferenceExtension: true },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([a?.close(), b?.close(), epp?.close(), fallbackEpp?.close()]);
  });
  afterEach(() => {
    a.received.length = 0;
    b.received.length = 0;
  });

  it('sends every request to the endpoint the endpoint picker chose, with the body it returned', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await chat(`${proxy.base}/v1/chat/completions`, body('picked-llama'), { 'x-test': `pick-${i}` });
      expect(res.status).toBe(200);
    }
    expect(a.received).toHaveLength(0);
    expect(b.received).toHaveLength(4);
    expect(b.received[0]).toMatchObject({ path: '/v1/chat/completions', body: { model: 'chosen-by-epp' } });
  });

  it('shows the picker the request and the pool endpoints as the subset hint', async () => {
    await chat(`${proxy.base}/v1/chat/completions`, body('picked-llama'), {
      'x-test': 'shown',
      authorization: 'Bearer client-SECRET',
    });
    const seen = epp.stream('shown');
    const headers = seen[0]?.requestHeaders?.headers;
    expect(headerOf(headers, ':path')).toBe('/v1/chat/completions');
    expect(headerOf(headers, 'authorization')).toBeUndefined();
    expect(seen[0]?.metadataContext?.filterMetadata?.['envoy.lb.subset_hint']).toEqual({
      'x-gateway-destination-endpoint-subset': [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`].sort(),
    });
    expect(JSON.parse(bodyOf(seen[1]?.requestBody))).toMatchObject({ model: 'picked-llama' });
  });

  it('tells the picker which endpoint served, with the response status and headers, on the same stream', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, body('picked-llama'), { 'x-test': 'served' });
    expect(res.status).toBe(200);
    const phase = await vi.waitFor(() => {
      const m = epp.stream('served').find((x) => x.responseHeaders);
      if (!m) throw new Error('no response phase yet');
      return m;
    });
    expect(phase.metadataContext?.filterMetadata?.['envoy.lb']).toEqual({
      'x-gateway-destination-endpoint-served': `127.0.0.1:${b.port}`,
    });
    expect(headerOf(phase.responseHeaders?.headers, ':status')).toBe('200');
    expect(headerOf(phase.responseHeaders?.headers, 'content-type')).toContain('application/json');
  });

  it("falls back to the endpoint under the picker's fallback key when its first choice refuses connections", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await chat(`${proxy.base}/v1/chat/completions`, body('fallback-llama'), { 'x-test': `fb-${i}` });
      expect(res.status).toBe(200);
    }
    expect(b.received).toHaveLength(2);
    const phase = await vi.waitFor(() => {
      const m = fallbackEpp.stream('fb-0').find((x) => x.responseHeaders);
      if (!m) throw new Error('no response phase yet');
      return m;
    });
    expect(phase.metadataContext?.filterMetadata?.['envoy.lb']).toEqual({
      'x-gateway-destination-endpoint-served': `127.0.0.1:${b.port}`,
    });
  });

  it('takes the pool endpoints in turn when the pool has no endpoint picker', async () => {
    for (let i = 0; i < 4; i++)
      expect((await chat(`${proxy.base}/v1/chat/completions`, body('turns-llama'))).status).toBe(200);
    expect(a.received).toHaveLength(2);
    expect(b.received).toHaveLength(2);
    expect(b.received[0]).toMatchObject({ body: { model: 'turns-llama' } });
  });

  it('refuses with 503 when a FailClose picker cannot be reached, and calls no model server', async () => {
    const res = await chat(`${proxy.base}/v1/chat/completions`, body('lost-llama'));
    expect(res.status).toBe(503);
    expect(res.json()).toMatchObject({ error: { code: 'no_healthy_provider' } });
    expect(res.text).toContain('FailClose');
    expect(a.received).toHaveLength(0);
  });

  it('takes the endpoints in turn when a FailOpen picker cannot be reached', async () => {
    for (let i = 0; i < 2; i++)
      expect((await chat(`${proxy.base}/v1/chat/completions`, body('open-llama'))).status).toBe(200);
    expect(a.received.length + b.received.length).toBe(2);
    expect(a.received).toHaveLength(1);
  });
});
