// Passive health (`health`) of AI providers and GwModels, translated from manifests and served by the real
// runtime with a clock the test moves, against loopback stand-ins of the OpenAI API: priority groups fail
// over only when every provider of one is ejected, latency (EWMA) orders a group, a GwModel's own health,
// and `unhealthyCondition` deciding which answers count as failures (on a provider and on a GwModel).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeBackendPolicy } from '../translated-ir.js';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { GATEWAY, aiRoute, chat, gwModel, modelRoute, startLlmProxy, type LlmProxy } from './llm-harness.js';

const body = (model = 'm') => ({ model, messages: [{ role: 'user', content: 'Hi' }] });

/** An OpenAI stand-in that answers with its name and moves the proxy's clock by `latencyMs` while it does. */
interface Timed {
  port: number;
  hits: number;
  server: Server;
}

describe('passive health of AI providers and GwModels', () => {
  const fakes: Record<string, FakeVendor> = {};
  const timed: Record<string, Timed> = {};
  let proxy: LlmProxy;
  let now = 1_800_000_000_000;

  async function startTimed(name: string, latencyMs: number): Promise<Timed> {
    const t: Partial<Timed> & { hits: number } = { hits: 0 };
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        t.hits++;
        now += latencyMs;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            model: 'm',
            choices: [{ index: 0, message: { role: 'assistant', content: name }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return Object.assign(t, { server, port: (server.address() as AddressInfo).port });
  }

  beforeAll(async () => {
    for (const n of ['a', 'b', 'c', 'a2', 'b2', 'c2', 'm1', 'm2', 'cx', 'cy', 'cm1', 'cm2'])
      fakes[n] = await startFakeVendor('openai');
    timed.fast = await startTimed('fast', 10);
    timed.slow = await startTimed('slow', 400);
    const p = (name: string, port: number) => `{name: ${name}, openai: {}, host: 127.0.0.1, port: ${port}}`;
    const f = (n: string): number => (fakes[n] as FakeVendor).port;
    const groups = (name: string, gs: string[][], port: (n: string) => number) => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  ai:
    groups:
${gs.map((g) => `    - providers: [${g.map((n) => p(n, port(n))).join(', ')}]`).join('\n')}
`;
    const health = (h: string) => `{health: {${h}}}`;
    const model = (port: number, h: string) =>
      `  provider: OpenAI\n  baseURL: http://127.0.0.1:${port}/v1\n  visibility: Internal\n  policies: {auth: {key: k}, health: {${h}}}`;
    proxy = await startLlmProxy(
      `${GATEWAY}
${groups('prio', [['a', 'b'], ['c']], f)}${groups('cond', [['cx'], ['cy']], f)}${aiRoute('cond', '/cond', 'cond')}${routeBackendPolicy(
        'cond',
        health('consecutiveFailures: 1, maxEjectionPercent: 100, unhealthyCondition: "response.code == 503"'),
      )}${groups('prio2', [['a2', 'b2'], ['c2']], f)}${groups(
        'speed',
        [['fast', 'slow']],
        (n) => (timed[n] as Timed).port,
      )}${aiRoute('prio', '/prio', 'prio')}${routeBackendPolicy(
        'prio',
        health('consecutiveFailures: 2, ejectionDuration: 60s, maxEjectionPercent: 100'),
      )}${aiRoute('prio2', '/prio2', 'prio2')}${routeBackendPolicy(
        'prio2',
        health('consecutiveFailures: 1, ejectionDuration: 60s, maxEjectionPercent: 100'),
      )}${aiRoute('speed', '/speed', 'speed')}${routeBackendPolicy('speed', health('consecutiveFailures: 3'))}${modelRoute(
        'llm',
        '/v1',
      )}${gwModel('flaky', model(f('m1'), 'consecutiveFailures: 2, ejectionDuration: 60s'))}${gwModel(
        'backup',
        model(f('m2'), 'consecutiveFailures: 2'),
      )}${gwModel(
        'smart',
        `  virtualModel:
    failover:
      targets:
      - {modelRef: {name: flaky}, model: big, priority: 0}
      - {modelRef: {name: backup}, model: big, priority: 1}`,
      )}${gwModel('choosy', model(f('cm1'), 'consecutiveFailures: 1, unhealthyCondition: "response.code == 503"'))}${gwModel(
        'spare',
        model(f('cm2'), 'consecutiveFailures: 2'),
      )}${gwModel(
        'picky',
        `  virtualModel:
    failover:
      targets:
      - {modelRef: {name: choosy}, model: big, priority: 0}
      - {modelRef: {name: spare}, model: big, priority: 1}`,
      )}`,
      { clock: () => now },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all(Object.values(fakes).map((f) => f.close()));
    for (const t of Object.values(timed)) t.server.close();
  });

  const hits = (n: string): number => (fakes[n] as FakeVendor).received.length;

  it('uses the next priority group only once every provider of the first is ejected', async () => {
    (fakes.a as FakeVendor).mode = { kind: 'status', status: 500 };
    (fakes.b as FakeVendor).mode = { kind: 'status', status: 503 };
    for (let i = 0; i < 2; i++) expect((await chat(`${proxy.base}/prio/chat`, body())).status).toBe(200);
    // Each request tried a and b first; after two failures each both are ejected.
    expect([hits('a'), hits('b'), hits('c')]).toEqual([2, 2, 2]);
    for (let i = 0; i < 5; i++) expect((await chat(`${proxy.base}/prio/chat`, body())).status).toBe(200);
    expect([hits('a'), hits('b'), hits('c')]).toEqual([2, 2, 7]);
    now += 30_000; // the default LLM backoff (5 s doubled) would be over; ejectionDuration 60 s is not
    await chat(`${proxy.base}/prio/chat`, body());
    expect([hits('a'), hits('b')]).toEqual([2, 2]);
    now += 30_001;
    (fakes.a as FakeVendor).mode = { kind: 'ok' };
    (fakes.b as FakeVendor).mode = { kind: 'ok' };
    const before = hits('c');
    for (let i = 0; i < 4; i++) expect((await chat(`${proxy.base}/prio/chat`, body())).status).toBe(200);
    expect(hits('c')).toBe(before);
    expect(hits('a') + hits('b')).toBe(8);
  });

  it('keeps a priority group in use while one of its providers is healthy', async () => {
    (fakes.a2 as FakeVendor).mode = { kind: 'status', status: 500 };
    for (let i = 0; i < 10; i++) expect((await chat(`${proxy.base}/prio2/chat`, body())).status).toBe(200);
    expect(hits('a2')).toBe(1);
    expect(hits('b2')).toBe(10);
    expect(hits('c2')).toBe(0);
    expect(await proxy.runtime.metrics.registry.getSingleMetricAsString('gw_upstream_ejections_total')).toMatch(
      /pool="GwBackend\/default\/prio2",endpoint="a2",reason="failures"\} 1/,
    );
  });

  it('sends equal-priority providers by latency: the faster one, once both are measured', async () => {
    for (let i = 0; i < 2; i++) await chat(`${proxy.base}/speed/chat`, body());
    // Unmeasured providers go first, so each was measured once.
    expect([(timed.fast as Timed).hits, (timed.slow as Timed).hits]).toEqual([1, 1]);
    for (let i = 0; i < 20; i++)
      expect((await chat(`${proxy.base}/speed/chat`, body())).json()).toMatchObject({
        choices: [{ message: { content: 'fast' } }],
      });
    expect((timed.slow as Timed).hits).toBe(1);
  });

  it('ejects a GwModel by its own policies.health: its virtual model fails over until the ejection ends', async () => {
    (fakes.m1 as FakeVendor).mode = { kind: 'status', status: 500 };
    for (let i = 0; i < 2; i++)
      expect((await chat(`${proxy.base}/v1/chat/completions`, body('smart'))).status).toBe(200);
    // Two failures in a row (the default would leave it out after one).
    expect([hits('m1'), hits('m2')]).toEqual([2, 2]);
    now += 30_000; // within the 60 s ejection (the default backoff would be over)
    for (let i = 0; i < 3; i++) await chat(`${proxy.base}/v1/chat/completions`, body('smart'));
    expect([hits('m1'), hits('m2')]).toEqual([2, 5]);
    now += 30_001;
    (fakes.m1 as FakeVendor).mode = { kind: 'ok' };
    await chat(`${proxy.base}/v1/chat/completions`, body('smart'));
    expect([hits('m1'), hits('m2')]).toEqual([3, 5]);
  });

  it('counts failures by unhealthyCondition: 500s it does not match fail over but never eject, a 503 it matches does', async () => {
    (fakes.cx as FakeVendor).mode = { kind: 'status', status: 500 };
    for (let i = 0; i < 5; i++) expect((await chat(`${proxy.base}/cond/chat`, body())).status).toBe(200);
    expect([hits('cx'), hits('cy')]).toEqual([5, 5]);
    (fakes.cx as FakeVendor).mode = { kind: 'status', status: 503 };
    for (let i = 0; i < 5; i++) expect((await chat(`${proxy.base}/cond/chat`, body())).status).toBe(200);
    expect([hits('cx'), hits('cy')]).toEqual([6, 10]);
  });

  it("applies a GwModel's own unhealthyCondition: 500s fail over without ejecting it, a 503 ejects it", async () => {
    (fakes.cm1 as FakeVendor).mode = { kind: 'status', status: 500 };
    const picky = () => chat(`${proxy.base}/v1/chat/completions`, body('picky'));
    for (let i = 0; i < 3; i++) expect((await picky()).status).toBe(200);
    expect([hits('cm1'), hits('cm2')]).toEqual([3, 3]);
    (fakes.cm1 as FakeVendor).mode = { kind: 'status', status: 503 };
    for (let i = 0; i < 3; i++) expect((await picky()).status).toBe(200);
    expect([hits('cm1'), hits('cm2')]).toEqual([4, 6]);
  });
});
