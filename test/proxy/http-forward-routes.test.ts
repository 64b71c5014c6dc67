// Which backend an HTTP route forwards to (weights, a2a), what the snapshot check accepts, and an
// HTTPRoute → GwBackend `static` served end to end through the translator and the proxy runtime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { formatProblem } from '../../src/problem.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';
import { log, rawRequest, startForwardProxy, startUpstream, type Upstream } from './http-forward-harness.js';
import { gatewayWithStaticBackend, translatedIr } from './translated-ir.js';

describe('HTTP route backends', () => {
  const upstreams: Upstream[] = [];
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    for (const id of ['a', 'b', 'zero']) {
      upstreams.push(
        await startUpstream((req, res) => {
          req.resume();
          res
            .writeHead(200, { 'x-upstream': id, 'content-type': 'application/json' })
            .end('{"jsonrpc":"2.0","id":1,"result":{}}');
        }),
      );
    }
    const [a, b, zero] = upstreams as [Upstream, Upstream, Upstream];
    ({ runtime, base } = await startForwardProxy(
      [
        {
          name: 'split',
          prefix: '/split',
          backends: [
            { name: 'a', weight: 3 },
            { name: 'b', weight: 1 },
            { name: 'zero', weight: 0 },
          ],
        },
        { name: 'agent', prefix: '/agent', backends: [{ name: 'agent', weight: 1 }] },
      ],
      [
        { name: 'a', static: { host: '127.0.0.1', port: a.port } },
        { name: 'b', static: { host: '127.0.0.1', port: b.port } },
        { name: 'zero', static: { host: '127.0.0.1', port: zero.port } },
        { name: 'agent', a2a: { host: '127.0.0.1', port: b.port } },
      ],
    ));
  });

  afterAll(async () => {
    await runtime?.close();
    await Promise.all(upstreams.map((u) => u.close()));
  });

  it('splits 1000 requests 3:1 by weight and sends none to a weight-0 backend', async () => {
    const counts: Record<string, number> = {};
    for (let batch = 0; batch < 20; batch++) {
      const ids = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const res = await fetch(`${base}/split`);
          await res.arrayBuffer();
          return res.headers.get('x-upstream') ?? 'none';
        }),
      );
      for (const id of ids) counts[id] = (counts[id] ?? 0) + 1;
    }
    expect(counts.zero).toBeUndefined();
    expect((counts.a ?? 0) + (counts.b ?? 0)).toBe(1000);
    // Binomial(1000, 0.75) has a standard deviation of ~14; ±70 is five of them.
    expect(counts.a).toBeGreaterThan(680);
    expect(counts.a).toBeLessThan(820);
  });

  it('forwards an a2a backend as plain HTTP JSON-RPC', async () => {
    const res = await fetch(`${base}/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"message/send"}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-upstream')).toBe('b');
  });

  it('reuses one keep-alive connection to the backend for sequential requests', async () => {
    const b = upstreams[1] as Upstream;
    let opened = 0;
    const count = (): void => {
      opened++;
    };
    b.server.on('connection', count);
    try {
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${base}/agent`, { method: 'POST', body: '{}' });
        await res.arrayBuffer();
      }
    } finally {
      b.server.off('connection', count);
    }
    expect(opened).toBeLessThanOrEqual(1);
  });

  it('NACKs static and a2a backends without a host or with a port outside 1..65535, naming the field', () => {
    const snapshot = normalizeSnapshot({
      version: '1',
      resources: [
        { backend: { name: 'nohost', static: { host: '', port: 80 } } },
        { backend: { name: 'noport', static: { host: 'svc', port: 0 } } },
        { backend: { name: 'agent', a2a: { host: 'svc', port: 70000 } } },
        { backend: { name: 'fine', static: { host: 'svc.ns.svc.cluster.local', port: 8080 } } },
      ],
    });
    expect(checkSnapshot(snapshot, 'xds').map(formatProblem)).toEqual([
      'xds: Backend nohost: static.host: must not be empty',
      'xds: Backend noport: static.port: must be between 1 and 65535, got 0',
      'xds: Backend agent: a2a.port: must be between 1 and 65535, got 70000',
    ]);
  });
});

describe('an HTTPRoute to a GwBackend static, translated and served', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      if (req.url?.startsWith('/shop/slow')) return; // never answers: the rule's timeout must
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`shop saw ${req.method} ${req.url} for ${req.headers.host}`);
    });
    runtime = new ProxyRuntime({ log });
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('forwards to the backend and applies the rule timeout', async () => {
    const manifests = `${gatewayWithStaticBackend(upstream.port)}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: default}
spec:
  parentRefs: [{name: web}]
  hostnames: [shop.example.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: /shop}}]
    timeouts: {request: 300ms}
    backendRefs: [{group: gw.dev, kind: GwBackend, name: shop}]
`;
    const ir = translatedIr(manifests);
    await runtime.apply(ir);
    const base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;

    const res = await rawRequest(`${base}/shop/cart?id=7`, { headers: { host: 'shop.example.com' } });
    expect(res.status).toBe(200);
    expect(res.body).toBe('shop saw GET /shop/cart?id=7 for shop.example.com');
    const slow = await rawRequest(`${base}/shop/slow`, { headers: { host: 'shop.example.com' } });
    expect(slow.status).toBe(504);
  });
});
