// GwPolicy `frontend.metrics.attributes.add`: labels a listener adds to the request metrics, valued by CEL.
// Real requests through a runtime serving translated manifests, then the proxy's own /metrics endpoint is
// scraped: the label must be there with the evaluated value (or `unknown`), and absent without the policy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics, MAX_LABEL_SETS } from '../../src/proxy/metrics.js';
import { startOps, type OpsServers } from '../../src/proxy/ops.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { waitFor } from './harness.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests, frontendPolicy } from './traffic-manifests.js';

const policy = (add: string): string => frontendPolicy(`{metrics: {attributes: {add: ${add}}}}`, 'metrics');

/** The samples of `metric` in exposition text, each as its label map and value. */
function samples(text: string, metric: string): { labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${metric}{`))
    .map((line) => {
      const [, body = '', value = ''] = /^[^{]+\{(.*)\} (\S+)$/.exec(line) ?? [];
      const labels = Object.fromEntries([...body.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
      return { labels: labels as Record<string, string>, value: Number(value) };
    });
}

let upstream: Upstream;
let runtime: ProxyRuntime | undefined;
let ops: OpsServers | undefined;
let base: string;

const serve = async (extra: string): Promise<void> => {
  await ops?.close();
  await runtime?.close();
  runtime = new ProxyRuntime({ log });
  await runtime.apply(translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], extra)));
  base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  ops = await startOps({
    readyAddress: '127.0.0.1:0',
    metricsAddress: '127.0.0.1:0',
    isReady: () => true,
    registry: runtime.metrics.registry,
  });
};
const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${ops?.metricsPort}/metrics`)).text();
/** Requests the request counter has recorded so far, over every label set. */
const counted = async (): Promise<number> => {
  const values = (await runtime?.metrics.registry.getSingleMetric('gw_http_requests_total')?.get())?.values ?? [];
  return values.reduce((n, v) => n + v.value, 0);
};
const get = async (path: string, headers: Record<string, string> = {}): Promise<void> => {
  const before = await counted();
  await (await fetch(`${base}${path}`, { headers })).text();
  // The metrics are recorded when the response closes, which may come after the client has read it.
  await waitFor(async () => (await counted()) > before);
};

beforeAll(async () => {
  upstream = await startUpstream((req, res) => res.writeHead(req.url?.includes('missing') ? 404 : 200).end('ok'));
});
afterAll(async () => {
  await ops?.close();
  await runtime?.close();
  await upstream?.close();
});

describe('frontend.metrics.attributes.add', () => {
  it('labels the request counter and the latency histogram with each evaluated expression', async () => {
    await serve(
      policy(
        `[{name: tenant, expression: 'request.headers["x-tenant"]'}, {name: outcome, expression: 'response.code >= 400 ? "failed" : "served"'}]`,
      ),
    );
    await get('/app/x', { 'x-tenant': 'acme' });
    await get('/app/missing', { 'x-tenant': 'globex' });
    const text = await scrape();
    expect(samples(text, 'gw_http_requests_total')).toEqual(
      expect.arrayContaining([
        { labels: { method: 'GET', status: '200', tenant: 'acme', outcome: 'served' }, value: 1 },
        { labels: { method: 'GET', status: '404', tenant: 'globex', outcome: 'failed' }, value: 1 },
      ]),
    );
    expect(samples(text, 'gw_http_request_duration_seconds_count')).toEqual(
      expect.arrayContaining([{ labels: { method: 'GET', tenant: 'acme', outcome: 'served' }, value: 1 }]),
    );
  });

  it('gives a label whose expression fails the value unknown (seed 001)', async () => {
    await serve(
      policy(`[{name: subject, expression: 'jwt.sub'}, {name: tenant, expression: 'request.headers["x-tenant"]'}]`),
    );
    await get('/app/x');
    expect(samples(await scrape(), 'gw_http_requests_total')).toEqual([
      { labels: { method: 'GET', status: '200', subject: 'unknown', tenant: 'unknown' }, value: 1 },
    ]);
  });

  it('adds no label without the policy', async () => {
    await serve('');
    await get('/app/x', { 'x-tenant': 'acme' });
    expect(samples(await scrape(), 'gw_http_requests_total')).toEqual([
      { labels: { method: 'GET', status: '200' }, value: 1 },
    ]);
  });

  it('takes a changed set of label names on the next snapshot without restarting', async () => {
    await serve(policy(`[{name: tenant, expression: 'request.headers["x-tenant"]'}]`));
    await get('/app/x', { 'x-tenant': 'acme' });
    await runtime?.apply(
      translatedIr(
        trafficManifests(
          upstream.port,
          [{ name: 'app', traffic: '{}' }],
          policy(`[{name: verb, expression: 'request.method'}]`),
        ),
      ),
    );
    await get('/app/x', { 'x-tenant': 'acme' });
    expect(samples(await scrape(), 'gw_http_requests_total')).toEqual([
      { labels: { method: 'GET', status: '200', verb: 'GET' }, value: 1 },
    ]);
  });
});

describe('request metrics label budget', () => {
  it(`keeps ${MAX_LABEL_SETS} combinations of added values apart and records the rest as overflow`, async () => {
    const metrics = createMetrics();
    metrics.http.useLabels(['id']);
    for (let i = 0; i <= MAX_LABEL_SETS; i++) metrics.http.record('GET', 200, 0.001, { id: String(i) });
    metrics.http.record('GET', 200, 0.001, { id: '0' });
    const values = (await metrics.registry.getSingleMetric('gw_http_requests_total')?.get())?.values ?? [];
    expect(values).toHaveLength(MAX_LABEL_SETS + 1);
    expect(values.find((v) => v.labels.id === 'overflow')?.value).toBe(1);
    expect(values.find((v) => v.labels.id === '0')?.value).toBe(2);
  });
});
