// Three `gw proxy` processes (xDS from a local-mode controller) share one `traffic.rateLimit.global` limit
// kept by envoyproxy/ratelimit on a real Redis: together they admit what the limit allows, not three times
// it, which is what local limits (one bucket per replica) cannot do.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../../src/controller/local/serve-local.js';
import { startUpstream, type Upstream } from '../proxy/http-forward-harness.js';
import { RateLimitService } from '../proxy/ratelimit-service.js';
import { freePort, startController, startReadyProxies, type ProxyProcess } from './harness.js';

const addresses = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
const LIMIT = 30;

function writeObjects(dir: string, o: { listenerPort: number; upstreamPort: number; grpcPort: number }): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'objects.yaml'),
    `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: default}
spec:
  gatewayClassName: gw
  listeners: [{name: http, protocol: HTTP, port: ${o.listenerPort}}]
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: shop, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${o.upstreamPort}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /shop}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: shop}]
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: shared-limit, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  traffic:
    rateLimit:
      global:
        url: grpc://127.0.0.1:${o.grpcPort}
        domain: replicas
        timeout: 10s
        descriptors: [{entries: [{name: route, expression: "'shop'"}]}]
`,
  );
}

describe('a global rate limit shared by three proxy processes', () => {
  let dir: string;
  let service: RateLimitService;
  let upstream: Upstream;
  let controller: LocalServer | undefined;
  let listenerPort: number;
  let served = 0;
  let proxies: ProxyProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-global-limit-'));
    // Year windows and a 10 s timeout: see test/proxy/rate-limit-global.test.ts (a reset or a slow answer mid-test).
    service = await RateLimitService.start(`domain: replicas
descriptors:
  - {key: route, value: shop, rate_limit: {unit: year, requests_per_unit: ${LIMIT}}}
`);
    upstream = await startUpstream((_req, res) => {
      served++;
      res.writeHead(200).end('ok');
    });
    const xdsPort = await freePort();
    listenerPort = await freePort();
    writeObjects(join(dir, 'manifests'), { listenerPort, upstreamPort: upstream.port, grpcPort: service.grpcPort });
    controller = await startController(join(dir, 'manifests'), join(dir, 'status'), xdsPort);
    proxies = await startReadyProxies({ xdsPort, listenAddresses: addresses, timeoutMs: 180_000 });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.stop()));
    await controller?.stop();
    await upstream?.close();
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('admits exactly the limit across the replicas, each replica refusing once the shared budget is spent', async () => {
    const statuses: number[][] = addresses.map(() => []);
    // Rounds of three concurrent requests, one per replica, until well past the limit.
    for (let round = 0; round < 15; round++) {
      const answers = await Promise.all(
        addresses.map((a) => fetch(`http://${a}:${listenerPort}/shop`).then(async (r) => (await r.text(), r.status))),
      );
      answers.forEach((s, i) => statuses[i]?.push(s));
    }
    const all = statuses.flat();
    // Redis counts atomically: the limit holds exactly, not within a replica count's multiple.
    expect(all.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(all.filter((s) => s === 429)).toHaveLength(15 * addresses.length - LIMIT);
    expect(served).toBe(LIMIT);
    for (const s of statuses) {
      expect(s).toContain(200);
      expect(s.at(-1)).toBe(429);
    }
  }, 60_000);
});
