// An HTTPRoute with filters, through the translator and the IR codec into the proxy runtime: what a
// user applies is what happens on the wire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import { gatewayWithStaticBackend, translatedIr } from './translated-ir.js';

const manifests = (port: number): string => `${gatewayWithStaticBackend(port)}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /store}}]
    filters:
    - type: RequestRedirect
      requestRedirect: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /shop}, statusCode: 308}
  - matches: [{path: {type: PathPrefix, value: /shop}}]
    filters:
    - type: URLRewrite
      urlRewrite: {hostname: shop.internal, path: {type: ReplacePrefixMatch, replacePrefixMatch: /api}}
    - type: RequestHeaderModifier
      requestHeaderModifier: {set: [{name: X-Tenant, value: blue}]}
    - type: ResponseHeaderModifier
      responseHeaderModifier: {add: [{name: X-Served-By, value: gw}]}
    backendRefs: [{group: gw.dev, kind: GwBackend, name: shop}]
`;

describe('an HTTPRoute with filters, translated and served', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`${req.url} ${req.headers.host} ${req.headers['x-tenant']}`);
    });
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(manifests(upstream.port)));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('rewrites prefix and Host, sets the request header and adds the response header', async () => {
    const res = await rawRequest(`${base}/shop/cart?id=7`, { headers: { host: 'shop.example.com' } });
    expect(res.status).toBe(200);
    expect(res.body).toBe('/api/cart?id=7 shop.internal blue');
    expect(res.headers['x-served-by']).toBe('gw');
  });

  it('redirects the old prefix to the new one with 308', async () => {
    const res = await rawRequest(`${base}/store/cart?id=7`, { headers: { host: 'shop.example.com' } });
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe('http://shop.example.com/shop/cart?id=7');
  });
});
