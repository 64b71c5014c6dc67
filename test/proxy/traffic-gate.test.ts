// GwPolicy traffic rate limits and direct responses, before dispatch, on forwarded and MCP routes alike:
// translated from manifests, served by a real runtime whose rate-limit clock the test moves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { mcpBackendManifest, trafficManifests } from './traffic-manifests.js';

const mcpRoute = mcpBackendManifest('tools', 9);

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

describe('GwPolicy traffic settings answered before dispatch', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  let now = 1_000_000;
  let hits = 0;

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('upstream');
    });
    runtime = new ProxyRuntime({ log, clock: () => now });
    await runtime.apply(
      translatedIr(
        trafficManifests(
          upstream.port,
          [
            { name: 'limited', traffic: '{rateLimit: {local: [{requests: 1, unit: Minutes, burst: 1}]}}' },
            { name: 'tokens', traffic: '{rateLimit: {local: [{tokens: 1, unit: Hours}]}}' },
            {
              name: 'mcp',
              backend: 'tools',
              traffic:
                '{rateLimit: {local: [{requests: 1, unit: Hours}]}, headerModifiers: {response: {add: [{name: X-Policy, value: mcp}]}}}',
            },
            {
              name: 'direct',
              traffic: `{directResponse: {status: 503, body: '{"down":true}', headers: [{name: Content-Type, value: "'application/json'"}]}}`,
            },
            { name: 'dynamic', traffic: '{directResponse: {status: 200, bodyExpression: request.path}}' },
          ],
          mcpRoute,
        ),
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('answers 429 with retry-after once requests and burst are used up, and admits again when a token refills', async () => {
    expect((await rawRequest(`${base}/limited`)).status).toBe(200);
    expect((await rawRequest(`${base}/limited`)).status).toBe(200);
    const refused = await rawRequest(`${base}/limited`);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'rate_limited' });
    now += 30_000;
    expect((await rawRequest(`${base}/limited`)).headers['retry-after']).toBe('30');
    now += 30_000;
    expect((await rawRequest(`${base}/limited`)).status).toBe(200);
    expect(await runtime.metrics.registry.getSingleMetricAsString('gw_rate_limited_total')).toMatch(
      /route="HTTPRoute\/default\/limited\/0"\} 2/,
    );
  });

  it('does not enforce token limits (not implemented yet) and lets requests through', async () => {
    for (let i = 0; i < 3; i++) expect((await rawRequest(`${base}/tokens`)).status).toBe(200);
  });

  it('limits an MCP route before it reaches the MCP endpoint, and modifies its response headers', async () => {
    const send = () =>
      rawRequest(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: initialize,
      });
    const first = await send();
    expect(first.status).not.toBe(429);
    expect(first.headers['x-policy']).toBe('mcp');
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.headers['x-policy']).toBe('mcp');
    expect(refused.headers['retry-after']).toBe('3600');
  });

  it('serves a static direct response without contacting the backend', async () => {
    const before = hits;
    const res = await rawRequest(`${base}/direct/anything`);
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toBe('{"down":true}');
    expect(hits).toBe(before);
  });

  it('answers a direct response whose body reads the request, evaluated per request, without forwarding it', async () => {
    const before = hits;
    const res = await rawRequest(`${base}/dynamic/a?q=1`);
    expect(res.status).toBe(200);
    expect(res.body).toBe('/dynamic/a');
    expect((await rawRequest(`${base}/dynamic/b`)).body).toBe('/dynamic/b');
    expect(hits).toBe(before);
  });
});
