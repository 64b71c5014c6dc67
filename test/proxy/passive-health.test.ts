// Passive health (`backend.health`) on HTTP backends, translated from manifests and served by a real proxy
// runtime with a clock the tests move: a route's two backends under load with one killed midway, backoff
// growth, the bound on ejected members, and a 429's Retry-After as the ejection time; a Service's Pods (from
// its EndpointSlices) balanced and ejected one by one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import { GATEWAY_WEB, httpRoute, routeBackendPolicy, translatedIr } from './translated-ir.js';

interface Named extends Upstream {
  hits: number;
  /** Status it answers; 200 with its name as the body by default. */
  status: number;
  retryAfter?: string;
  /** Sent with every answer. */
  headers: Record<string, string>;
  /** The Host header of the last request. */
  host?: string;
}

async function named(name: string): Promise<Named> {
  const state = { hits: 0, status: 200, retryAfter: undefined as string | undefined, headers: {}, host: '' };
  const up = await startUpstream((req, res) => {
    state.hits++;
    state.host = req.headers.host ?? '';
    res.writeHead(state.status, { ...state.headers, ...(state.retryAfter ? { 'retry-after': state.retryAfter } : {}) });
    res.end(name);
  });
  return Object.assign(state, up);
}

const backend = (name: string, port: number): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec: {static: {host: 127.0.0.1, port: ${port}}}
`;

/** HTTPRoute `name` on PathPrefix `/name` splitting evenly over GwBackends `to`, with `backend` policy if given. */
function route(name: string, to: string[], policy?: string): string {
  const refs = to.map((b) => `{group: gw.dev, kind: GwBackend, name: ${b}, weight: 1}`).join(', ');
  return `${httpRoute(name, { backendRefs: refs })}${policy ? routeBackendPolicy(name, policy) : ''}`;
}

/** `n` requests to `get` back to back (a closed loop), `kill` run after `killAt` of them; the failed ones. */
async function load(
  get: () => Promise<{ status: number; body: string }>,
  n: number,
  killAt: number,
  kill: () => Promise<void>,
  workers = 1,
) {
  let sent = 0;
  let failed = 0;
  const served: string[] = [];
  let killed: Promise<void> | undefined;
  const worker = async (): Promise<void> => {
    while (sent < n) {
      sent++;
      if (sent === killAt) killed = kill();
      const r = await get();
      if (r.status === 200) served.push(r.body);
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  await killed;
  return { failed, served };
}

describe('passive health on HTTP backends', () => {
  const ups: Record<string, Named> = {};
  let runtime: ProxyRuntime;
  let base: string;
  let now = 1_800_000_000_000;

  beforeAll(async () => {
    for (const n of ['live', 'doomed', 'ctl1', 'ctl2', 'conc1', 'conc2', 'ok', 'flaky', 'bad1', 'bad2', 'all1', 'all2'])
      ups[n] = await named(n);
    for (const n of ['steady', 'busy', 'plain', 'degraded', 'fine', 'erring']) ups[n] = await named(n);
    const port = (n: string): number => (ups[n] as Named).port;
    const health = (h: string) => `{health: {${h}}}`;
    const manifests = [
      GATEWAY_WEB,
      ...Object.keys(ups).map((n) => backend(n, port(n))),
      route('kill', ['live', 'doomed'], health('consecutiveFailures: 3, ejectionDuration: 30s')),
      route('control', ['ctl1', 'ctl2']),
      route('concurrent', ['conc1', 'conc2'], health('consecutiveFailures: 3')),
      route('backoff', ['ok', 'flaky'], health('consecutiveFailures: 2, ejectionDuration: 30s')),
      route('bound', ['bad1', 'bad2'], health('consecutiveFailures: 1, maxEjectionPercent: 50')),
      route('panic', ['all1', 'all2'], health('consecutiveFailures: 1, maxEjectionPercent: 100')),
      route('retry', ['steady', 'busy'], health('consecutiveFailures: 5, ejectionDuration: 10s')),
      route(
        'celheader',
        ['plain', 'degraded'],
        health(`consecutiveFailures: 2, unhealthyCondition: "'x-degraded' in response.headers"`),
      ),
      route(
        'celcode',
        ['fine', 'erring'],
        health('consecutiveFailures: 2, unhealthyCondition: "response.code == 404"'),
      ),
    ].join('');
    runtime = new ProxyRuntime({ log, clock: () => now });
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });
  afterAll(async () => {
    await runtime?.close();
    await Promise.all(Object.values(ups).map((u) => u.close()));
  });

  const get = async (path: string): Promise<{ status: number; body: string }> => {
    const r = await rawRequest(`${base}${path}`);
    return { status: r.status, body: r.body };
  };
  const metric = (name: string) => runtime.metrics.registry.getSingleMetricAsString(name);

  it('ejects a backend killed mid-load: no more failed requests than consecutiveFailures, the rest served', async () => {
    const doomed = ups.doomed as Named;
    const { failed, served } = await load(
      () => get('/kill/x'),
      200,
      60,
      () => doomed.close(),
    );
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThanOrEqual(3);
    expect(served.length).toBe(200 - failed);
    expect(served.slice(-100).every((b) => b === 'live')).toBe(true);
    expect(await metric('gw_upstream_ejections_total')).toMatch(
      /gw_upstream_ejections_total\{pool="HTTPRoute\/default\/kill\/0",endpoint="GwBackend\/default\/doomed",reason="failures"\} 1/,
    );
  });

  it('without health the same kill fails about half of the requests that follow', async () => {
    const { failed } = await load(
      () => get('/control/x'),
      100,
      20,
      () => (ups.ctl2 as Named).close(),
    );
    expect(failed).toBeGreaterThan(10);
  });

  it('with 8 requests in flight, only those already sent to the killed backend fail beyond the threshold', async () => {
    const { failed, served } = await load(
      () => get('/concurrent/x'),
      300,
      80,
      () => (ups.conc2 as Named).close(),
      8,
    );
    expect(failed).toBeLessThanOrEqual(3 + 7);
    expect(served.slice(-100).every((b) => b === 'conc1')).toBe(true);
  });

  it('doubles the ejection time per repeated ejection and starts afresh after a success', async () => {
    const flaky = ups.flaky as Named;
    flaky.status = 503;
    const untilHits = async (n: number): Promise<void> => {
      for (let i = 0; i < 200 && flaky.hits < n; i++) await get('/backoff/x');
      expect(flaky.hits).toBe(n);
    };
    const quiet = async (): Promise<number> => {
      const before = flaky.hits;
      for (let i = 0; i < 20; i++) expect((await get('/backoff/x')).body).toBe('ok');
      return flaky.hits - before;
    };
    await untilHits(2); // two 503s in a row: ejected for 30 s
    expect(await quiet()).toBe(0);
    now += 30_001; // back; one more failure ejects it again, now for 60 s
    await untilHits(3);
    now += 30_001;
    expect(await quiet()).toBe(0);
    now += 30_000;
    await untilHits(4); // back after 60 s; ejected again, for 120 s
    now += 60_001;
    expect(await quiet()).toBe(0);
    now += 60_000;
    flaky.status = 200; // a success clears the record: the next ejection takes two failures and 30 s again
    for (let i = 0; i < 200 && flaky.hits < 5; i++) await get('/backoff/x');
    flaky.status = 503;
    await untilHits(7);
    now += 30_001;
    await untilHits(8);
  });

  it('never ejects more than maxEjectionPercent of the pool: the other failing backend keeps its traffic', async () => {
    (ups.bad1 as Named).status = 500;
    (ups.bad2 as Named).status = 500;
    for (let i = 0; i < 40; i++) expect((await get('/bound/x')).status).toBe(500);
    const hits = [(ups.bad1 as Named).hits, (ups.bad2 as Named).hits].sort((a, b) => a - b);
    // One was ejected at its first failure; the other took every request after that.
    expect(hits[0]).toBeLessThanOrEqual(2);
    expect(hits[1]).toBeGreaterThanOrEqual(38);
    expect(await metric('gw_upstream_ejected_endpoints')).toMatch(
      /gw_upstream_ejected_endpoints\{pool="HTTPRoute\/default\/bound\/0"\} 1(\n|$)/,
    );
  });

  it('keeps serving when every backend is ejected (panic) rather than refusing for want of a healthy one', async () => {
    (ups.all1 as Named).status = 502;
    (ups.all2 as Named).status = 502;
    for (let i = 0; i < 30; i++) await get('/panic/x');
    expect(await metric('gw_upstream_ejected_endpoints')).toMatch(/pool="HTTPRoute\/default\/panic\/0"\} 2(\n|$)/);
    (ups.all1 as Named).status = 200;
    (ups.all2 as Named).status = 200;
    const before = (ups.all1 as Named).hits + (ups.all2 as Named).hits;
    for (let i = 0; i < 10; i++) expect((await get('/panic/x')).status).toBe(200);
    expect((ups.all1 as Named).hits + (ups.all2 as Named).hits).toBe(before + 10);
  });

  it('ejects at once on a 429 with Retry-After, for as long as it asks', async () => {
    const busy = ups.busy as Named;
    busy.status = 429;
    busy.retryAfter = '120';
    for (let i = 0; i < 200 && busy.hits < 1; i++) await get('/retry/x');
    expect(busy.hits).toBe(1);
    busy.status = 200;
    now += 60_000; // past the 10 s ejectionDuration, within the 120 s asked for
    for (let i = 0; i < 20; i++) expect((await get('/retry/x')).body).toBe('steady');
    now += 60_001;
    for (let i = 0; i < 200 && busy.hits < 2; i++) await get('/retry/x');
    expect(busy.hits).toBe(2);
    expect(await metric('gw_upstream_ejections_total')).toMatch(
      /pool="HTTPRoute\/default\/retry\/0",endpoint="GwBackend\/default\/busy",reason="retry_after"\} 1/,
    );
  });

  it('unhealthyCondition decides what fails: a 200 whose headers it names ejects after consecutiveFailures', async () => {
    const degraded = ups.degraded as Named;
    degraded.headers = { 'x-degraded': '1' };
    for (let i = 0; i < 200 && degraded.hits < 2; i++) expect((await get('/celheader/x')).status).toBe(200);
    expect(degraded.hits).toBe(2);
    for (let i = 0; i < 20; i++) expect((await get('/celheader/x')).body).toBe('plain');
    expect(await metric('gw_upstream_ejections_total')).toMatch(
      /pool="HTTPRoute\/default\/celheader\/0",endpoint="GwBackend\/default\/degraded",reason="failures"\} 1/,
    );
  });

  it('unhealthyCondition replaces the default rule: 503s it does not match never eject, 404s it matches do', async () => {
    const erring = ups.erring as Named;
    erring.status = 503;
    for (let i = 0; i < 40; i++) await get('/celcode/x');
    expect(erring.hits).toBeGreaterThan(10);
    const before = erring.hits;
    erring.status = 404;
    for (let i = 0; i < 200 && erring.hits < before + 2; i++) await get('/celcode/x');
    expect(erring.hits).toBe(before + 2);
    for (let i = 0; i < 20; i++) expect((await get('/celcode/x')).body).toBe('fine');
  });
});

/** Service default/app (port 80 named http) and one EndpointSlice per loopback "pod", each on its own port. */
function serviceWithPods(pods: Record<string, number>, ready: Record<string, boolean> = {}): string {
  const slices = Object.entries(pods).map(
    ([n, port]) => `---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: app-${n}, namespace: default, labels: {kubernetes.io/service-name: app}}
addressType: IPv4
ports: [{name: http, port: ${port}}]
endpoints: [{addresses: [127.0.0.1], conditions: {ready: ${ready[n] ?? true}}}]
`,
  );
  return `---
apiVersion: v1
kind: Service
metadata: {name: app, namespace: default}
spec: {ports: [{name: http, port: 80, targetPort: 8080}]}
${slices.join('')}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: app, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /}}]
    backendRefs: [{name: app, port: 80}]
${routeBackendPolicy('app', '{health: {consecutiveFailures: 3, ejectionDuration: 30s}}')}`;
}

// The Service's cluster DNS name does not resolve here: every request served proves the Pods were dialled.
describe("passive health on a Service's Pods (its EndpointSlices)", () => {
  const pods: Record<string, Named> = {};
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    for (const n of ['pod1', 'pod2', 'unready']) pods[n] = await named(n);
    const ports = Object.fromEntries(Object.entries(pods).map(([n, u]) => [n, u.port]));
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(GATEWAY_WEB + serviceWithPods(ports, { unready: false })));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });
  afterAll(async () => {
    await runtime?.close();
    await Promise.all(Object.values(pods).map((u) => u.close()));
  });
  const get = async (): Promise<{ status: number; body: string }> => {
    const r = await rawRequest(`${base}/x`);
    return { status: r.status, body: r.body };
  };

  it('balances over the ready Pods and ejects the one killed mid-load: at most consecutiveFailures failed', async () => {
    const pod1 = pods.pod1 as Named;
    const pod2 = pods.pod2 as Named;
    const { failed, served } = await load(get, 200, 60, () => pod2.close());
    expect(pod1.hits).toBeGreaterThan(0);
    expect(pod2.hits).toBeGreaterThan(0);
    expect((pods.unready as Named).hits).toBe(0);
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThanOrEqual(3);
    expect(served.slice(-100).every((b) => b === 'pod1')).toBe(true);
    expect(await runtime.metrics.registry.getSingleMetricAsString('gw_upstream_ejections_total')).toContain(
      `pool="HTTPRoute/default/app/0",endpoint="Service/default/app:80 127.0.0.1:${pod2.port}",reason="failures"} 1`,
    );
  });

  it("sends the client's Host to a Pod, not the Pod's address", async () => {
    await get();
    expect((pods.pod1 as Named).host).toBe(new URL(base).host);
  });
});
