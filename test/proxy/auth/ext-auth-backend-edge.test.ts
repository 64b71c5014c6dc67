// backend.extAuth per backend edge: two weighted static backends of one HTTPRoute, one with its own
// backend.extAuth (a GwPolicy on its GwBackend) and one without. The edge the weighted pick chose asks its own
// service before the request is sent (and the headers that service adds reach it); the other is sent unasked.
// Translated from manifests, a real runtime and listener, loopback upstreams and the ext_authz stand-in
// (ext-auth-server.ts: x-user alice is allowed, bob denied with 403).
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startUpstream, type Upstream } from '../http-forward-harness.js';
import { GATEWAY, startLlmProxy, type LlmProxy } from '../llm/llm-harness.js';
import { startExtAuthServer, type ExtAuthServer } from './ext-auth-server.js';

const backend = (name: string, port: number): string => `
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  static: {host: 127.0.0.1, port: ${port}}
`;

const manifests = (
  a: number,
  b: number,
  svc: string,
): string => `${GATEWAY}${backend('guarded', a)}${backend('plain', b)}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: guarded-edge, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: guarded}]
  backend: {extAuth: {url: "${svc}/edge-guarded", http: {allowedRequestHeaders: [X-User], allowedResponseHeaders: [X-Auth-User]}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: split, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /split}}]
    backendRefs:
    - {group: gw.dev, kind: GwBackend, name: guarded, weight: 1}
    - {group: gw.dev, kind: GwBackend, name: plain, weight: 1}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: split-retry, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: split}]
  traffic: {retry: {attempts: 3, backoff: 1ms, codes: [503]}}
`;

describe('backend.extAuth per weighted backend edge', () => {
  let guarded: Upstream, plain: Upstream;
  const received: Record<string, IncomingHttpHeaders[]> = { guarded: [], plain: [] };
  let authz: ExtAuthServer;
  let proxy: LlmProxy;
  // 24 requests at weights 1:1: both edges are picked (a miss has probability 2^-23).
  const send = (user: string, path = '/split/x') =>
    Promise.all(
      Array.from({ length: 24 }, async () => {
        const res = await fetch(`${proxy.base}${path}`, { headers: { 'x-user': user } });
        return { status: res.status, text: await res.text() };
      }),
    );

  beforeAll(async () => {
    // The guarded backend fails requests to /split/fail with 503 (the route retries 503).
    const answer =
      (name: string) =>
      (req: { url?: string; headers: IncomingHttpHeaders }, res: { statusCode: number; end(s: string): void }) => {
        received[name]?.push(req.headers);
        if (name === 'guarded' && req.url === '/split/fail') res.statusCode = 503;
        res.end(name);
      };
    [guarded, plain] = await Promise.all([startUpstream(answer('guarded')), startUpstream(answer('plain'))]);
    authz = await startExtAuthServer();
    proxy = await startLlmProxy(manifests(guarded.port, plain.port, `http://127.0.0.1:${authz.port}`));
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([guarded?.close(), plain?.close(), authz?.close()]);
  });
  beforeEach(() => {
    authz.checks.length = 0;
    received.guarded = [];
    received.plain = [];
  });

  it("asks the chosen edge's own service, and sends the headers it adds to that edge only", async () => {
    const answers = await send('alice');
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(received.guarded?.length).toBeGreaterThan(0);
    expect(received.plain?.length).toBeGreaterThan(0);
    // One check per request the guarded edge got, none for the plain edge's.
    expect(authz.checks).toHaveLength(received.guarded?.length ?? -1);
    expect(authz.checks.every((c) => c.url === '/edge-guarded/split/x')).toBe(true);
    expect(received.guarded?.every((h) => h['x-auth-user'] === 'alice')).toBe(true);
    expect(received.plain?.every((h) => h['x-auth-user'] === undefined)).toBe(true);
  });

  it("answers the chosen edge's denial, while the edge without extAuth serves the same client", async () => {
    const answers = await send('bob');
    const denied = answers.filter((a) => a.status === 403);
    const served = answers.filter((a) => a.status === 200);
    expect(denied.length).toBeGreaterThan(0);
    expect(denied.every((a) => a.text === JSON.stringify({ denied: 'bob' }))).toBe(true);
    expect(served.length).toBeGreaterThan(0);
    expect(served.every((a) => a.text === 'plain')).toBe(true);
    expect(received.guarded).toEqual([]);
    expect(received.plain).toHaveLength(served.length);
    expect(authz.checks).toHaveLength(denied.length);
  });

  it('retries only on edges asking the same service, so what a service allowed never reaches another edge', async () => {
    const answers = await send('alice', '/split/fail');
    const failed = answers.filter((a) => a.status === 503);
    const served = answers.filter((a) => a.status === 200);
    // A request first sent to the guarded edge stays there (the try and 3 retries, one check); one sent to plain is served.
    expect(failed.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThan(0);
    expect(served.every((a) => a.text === 'plain')).toBe(true);
    expect(received.guarded).toHaveLength(failed.length * 4);
    expect(received.plain).toHaveLength(served.length);
    expect(received.plain?.every((h) => h['x-auth-user'] === undefined)).toBe(true);
    expect(authz.checks).toHaveLength(failed.length);
  });
});
