// `policies.http.version` where HTTP backends' HTTP/2 client now reaches: AI providers, through a real proxy
// runtime translated from manifests. The stand-ins are the loopback OpenAI fake served by node:http2 (h2c
// only; h2 and HTTP/1.1 by ALPN with a test CA's certificate), recording the HTTP version of each request.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { issueLeaf, testCa } from '../support/test-certs.js';
import { startFakeVendor, type FakeVendor } from './llm/fake-vendors.js';
import { aiBackend, aiRoute, chat, sseData } from './llm/llm-harness.js';
import { GATEWAY_WEB, translatedIr } from './translated-ir.js';

const ask = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };

function manifests(h2c: number, h2: number, ca: string): string {
  const tls = 'tls: {caCertificateRefs: [{name: test-ca}], sni: vendor.test}';
  const provider = (port: number) => `openai: {model: gpt-4o}, host: 127.0.0.1, port: ${port}`;
  const ai = (name: string, port: number, policies: string): string =>
    `${aiBackend(name, provider(port), policies)}---\n${aiRoute(name, `/${name}`, name)}`;
  return [
    GATEWAY_WEB,
    `apiVersion: v1
kind: ConfigMap
metadata: {name: test-ca, namespace: default}
data: {ca.crt: ${JSON.stringify(ca)}}
`,
    ai('ai-h2c', h2c, '{http: {version: HTTP2}}'),
    ai('ai-h1-to-h2c', h2c, '{http: {version: HTTP1}}'),
    ai('ai-h2', h2, `{${tls}, http: {version: HTTP2}}`),
    ai('ai-h1', h2, `{${tls}}`),
  ].join('---\n');
}

describe('policies.http.version on AI providers', () => {
  let h2c: FakeVendor;
  let h2: FakeVendor;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    const ca = await testCa();
    const leaf = issueLeaf(ca, ['vendor.test'], 'server');
    [h2c, h2] = await Promise.all([
      startFakeVendor('openai', undefined, { http2: true }),
      startFakeVendor('openai', { cert: leaf.cert, key: leaf.key }, { http2: true }),
    ]);
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
    await runtime.apply(translatedIr(manifests(h2c.port, h2.port, ca.caCert), 'default/web', { enableModels: true }));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });
  afterAll(async () => {
    await runtime?.close();
    await Promise.all([h2c?.close(), h2?.close()]);
  });

  it('calls a plaintext provider over HTTP/2 with prior knowledge (h2c), which HTTP/1.1 cannot reach', async () => {
    const before = h2c.received.length;
    const res = await chat(`${base}/ai-h2c/v1/chat/completions`, ask);
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ choices: [{ message: { content: 'Hello' } }] });
    expect(h2c.received.slice(before).map((r) => r.version)).toEqual(['2.0']);
    const h1 = await chat(`${base}/ai-h1-to-h2c/v1/chat/completions`, ask);
    expect(h1.status).toBeGreaterThanOrEqual(500);
    expect(h2c.received.length).toBe(before + 1);
  });

  it('relays a streamed answer from an HTTP/2 provider event by event', async () => {
    const before = h2c.received.length;
    const res = await chat(`${base}/ai-h2c/v1/chat/completions`, { ...ask, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const data = sseData(res.text);
    expect(data.at(-1)).toBe('[DONE]');
    expect(data.length).toBeGreaterThan(2);
    expect(h2c.received.slice(before).map((r) => r.version)).toEqual(['2.0']);
  });

  it('calls an https provider over HTTP/2 by ALPN h2 with its policies.tls; without the field, HTTP/1.1', async () => {
    const before = h2.received.length;
    expect((await chat(`${base}/ai-h2/v1/chat/completions`, ask)).status).toBe(200);
    expect((await chat(`${base}/ai-h1/v1/chat/completions`, ask)).status).toBe(200);
    const got = h2.received.slice(before);
    expect(got.map((r) => [r.version, r.tls])).toEqual([
      ['2.0', true],
      ['1.1', true],
    ]);
    // The request reached the provider whole: the chat body the proxy built for it.
    expect(got[0]?.body).toMatchObject({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
  });
});
