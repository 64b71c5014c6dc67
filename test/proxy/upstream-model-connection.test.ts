// GwModel `policies.tls` and `policies.tunnel` through a real proxy runtime translated from manifests: a
// provider served over HTTPS by a certificate of a test CA (trusted through caCertificateRefs; another CA
// fails the handshake), and the same provider reached through a real forward proxy (test/forwardproxy,
// goproxy, which records each CONNECT). A tunnel whose Secret is missing fails closed (no_backend), never direct.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { issueLeaf, testCa } from '../support/test-certs.js';
import { ForwardProxy } from './forward-proxy.js';
import { startFakeVendor, type FakeVendor } from './llm/fake-vendors.js';
import { chat, gwModel, modelRoute, secret } from './llm/llm-harness.js';
import { GATEWAY_WEB, translatedIr } from './translated-ir.js';

const PASSWORD = 'model-dialer-s3cret';

const caMap = (name: string, pem: string): string => `---
apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}, namespace: default}
data: {ca.crt: ${JSON.stringify(pem)}}
`;

function manifests(vendorPort: number, proxy: string, ca: string, otherCa: string): string {
  const model = (name: string, policies: string): string =>
    gwModel(
      name,
      `  provider: OpenAI\n  baseURL: https://127.0.0.1:${vendorPort}/v1\n  policies: {auth: {key: sk-test}, ${policies}}\n`,
      'models',
    );
  const tls = (ref: string) => `tls: {caCertificateRefs: [{name: ${ref}}], sni: vendor.test}`;
  const tunnel = (auth: string) => `tunnel: {url: "http://${proxy}", mode: Connect, secretRef: {name: ${auth}}}`;
  return [
    GATEWAY_WEB,
    caMap('test-ca', ca),
    caMap('other-ca', otherCa),
    secret('proxy-auth', { username: 'gw', password: PASSWORD }),
    modelRoute('models', '/models'),
    model('trusted', tls('test-ca')),
    model('untrusted', tls('other-ca')),
    model('tunnelled', `${tls('test-ca')}, ${tunnel('proxy-auth')}`),
    model('no-secret', `${tls('test-ca')}, ${tunnel('no-such-secret')}`),
  ].join('');
}

describe('GwModel policies.tls and policies.tunnel', () => {
  let proxy: ForwardProxy;
  let vendor: FakeVendor;
  let runtime: ProxyRuntime;
  let url: string;

  beforeAll(async () => {
    const [ca, otherCa] = await Promise.all([testCa(), testCa('another CA')]);
    const leaf = issueLeaf(ca, ['vendor.test'], 'server');
    [proxy, vendor] = await Promise.all([
      ForwardProxy.start({ user: 'gw', password: PASSWORD }),
      startFakeVendor('openai', { cert: leaf.cert, key: leaf.key }),
    ]);
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
    await runtime.apply(
      translatedIr(manifests(vendor.port, proxy.address, ca.caCert, otherCa.caCert), 'default/web', {
        enableModels: true,
      }),
    );
    url = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}/models/v1/chat/completions`;
  });
  afterAll(async () => {
    await runtime?.close();
    await Promise.all([proxy?.stop(), vendor?.close()]);
  });

  const ask = (model: string) => chat(url, { model, messages: [{ role: 'user', content: 'Hi' }] });

  it('calls the provider over TLS trusting the CA policies.tls names, with its SNI', async () => {
    const before = vendor.received.length;
    const res = await ask('trusted');
    expect(res.status).toBe(200);
    const got = vendor.received.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]?.tls).toBe(true);
  });

  it('fails the handshake when policies.tls trusts another CA: nothing reaches the provider', async () => {
    const before = vendor.received.length;
    const res = await ask('untrusted');
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(vendor.received.length).toBe(before);
  });

  it("reaches the provider through policies.tunnel: CONNECT with the Secret's credential, then its TLS inside", async () => {
    const before = proxy.handled.length;
    const seen = vendor.received.length;
    const res = await ask('tunnelled');
    expect(res.status).toBe(200);
    expect(proxy.handled.slice(before)).toContainEqual({ method: 'CONNECT', target: `127.0.0.1:${vendor.port}` });
    expect(proxy.handled.slice(before).every((h) => !h.refused)).toBe(true);
    expect(vendor.received.slice(seen)[0]?.tls).toBe(true);
  });

  it('fails closed when the tunnel cannot be built (its Secret is missing): no_backend naming the field, never sent around the proxy', async () => {
    const before = { proxy: proxy.handled.length, vendor: vendor.received.length };
    const res = await ask('no-secret');
    expect(res.status).toBe(500);
    expect(res.text).not.toContain(PASSWORD);
    expect(res.json()).toMatchObject({
      error: { code: 'no_backend', message: expect.stringContaining('spec.policies.tunnel.secretRef') },
    });
    expect(proxy.handled.length).toBe(before.proxy);
    expect(vendor.received.length).toBe(before.vendor);
  });
});
