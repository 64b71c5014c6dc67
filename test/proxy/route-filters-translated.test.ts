// An HTTPRoute with filters, through the translator and the IR codec into the proxy runtime: what a
// user applies is what happens on the wire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { SnapshotInput } from '../../src/ir/types.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { snapshots, translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/store.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';

const manifests = (port: number): string => `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gw}
spec: {controllerName: gw.dev/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: default}
spec:
  gatewayClassName: gw
  listeners: [{name: http, port: 8080, protocol: HTTP}]
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: shop, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${port}}
---
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
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.url} ${req.headers.host} ${req.headers['x-tenant']}`);
    });
    const store = createStore();
    const parsed = parseManifests(manifests(upstream.port), 'test.yaml');
    expect(parsed.problems).toEqual([]);
    for (const { kind, obj } of parsed.objects) expect(putObject(store, kind, obj, 'test.yaml').problems).toEqual([]);
    const snapshot = snapshots(translateAll(store, { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' })).get('default/web');
    const ir = normalizeSnapshot(snapshot as unknown as SnapshotInput);
    // The Gateway's port 8080 on every interface becomes port 0 on loopback for the test.
    for (const r of ir.resources) if (r.bind) Object.assign(r.bind, { port: 0, address: '127.0.0.1' });
    runtime = new ProxyRuntime({ log });
    await runtime.apply(ir);
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
