// Typed reconcilers (controller-runtime style): each with its own request type and queue; equal
// requests coalesce, a thrown error is retried with backoff, requeueAfter comes back later, and one
// reconciler's backlog or failures never delay another's. Incremental translation is one module for
// cluster and local mode, with one threshold.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { FULL_TRANSLATE_THRESHOLD, IncrementalTranslation, PendingChanges } from '../../src/controller/incremental.js';
import { startController, type Reconciler } from '../../src/controller/reconciler.js';
import { createSlicer } from '../../src/controller/slices.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';
import { snapshots, translateAll } from '../../src/translate/state.js';
import { FakeClock } from './fake-clock.js';

const log = pino({ level: 'silent' });
const tick = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

interface GatewayRequest {
  gateway: string;
}

function recording(name: string, fail: (r: GatewayRequest) => boolean, requeueAfter?: number) {
  const seen: string[] = [];
  const reconciler: Reconciler<GatewayRequest> = {
    name,
    key: (r) => r.gateway,
    request: (gateway) => ({ gateway }),
    reconcile: async (r) => {
      seen.push(r.gateway);
      if (fail(r)) throw new Error(`${name} failed for ${r.gateway}`);
      return requeueAfter ? { requeueAfter } : {};
    },
  };
  return { reconciler, seen };
}

describe('typed reconcilers', () => {
  it('coalesces equal requests and hands the reconciler the typed request back', async () => {
    const clock = new FakeClock();
    const { reconciler, seen } = recording('deploy', () => false);
    const c = startController(reconciler, { clock, log, workers: 1 });
    // The idle worker takes ns/b at once; ns/a waits, and waits only once.
    c.enqueue({ gateway: 'ns/b' });
    c.enqueue({ gateway: 'ns/a' });
    c.enqueue({ gateway: 'ns/a' });
    await tick();
    expect(seen).toEqual(['ns/b', 'ns/a']);
    await c.stop();
  });

  it('retries a thrown error with backoff while another reconciler keeps working', async () => {
    const clock = new FakeClock();
    let failing = true;
    const deploy = recording('deploy', () => failing);
    const status = recording('status', () => false);
    const names: string[] = [];
    const instrument = async (name: string, run: () => Promise<object>) => {
      names.push(name);
      return run();
    };
    const d = startController(deploy.reconciler, { clock, log, workers: 1, instrument });
    const s = startController(status.reconciler, { clock, log, workers: 1, instrument });
    d.enqueue({ gateway: 'ns/a' });
    s.enqueue({ gateway: 'ns/a' });
    await tick();
    expect(deploy.seen).toEqual(['ns/a']);
    expect(status.seen).toEqual(['ns/a']);
    failing = false;
    clock.advance(4);
    await tick();
    expect(deploy.seen).toHaveLength(1);
    clock.advance(1);
    await tick();
    expect(deploy.seen).toEqual(['ns/a', 'ns/a']);
    expect(new Set(names)).toEqual(new Set(['deploy', 'status']));
    await Promise.all([d.stop(), s.stop()]);
  });

  it('comes back after requeueAfter', async () => {
    const clock = new FakeClock();
    const { reconciler, seen } = recording('deploy', () => false, 1_000);
    const c = startController(reconciler, { clock, log, workers: 2 });
    c.enqueue({ gateway: 'ns/a' });
    await tick();
    clock.advance(999);
    await tick();
    expect(seen).toHaveLength(1);
    clock.advance(1);
    await tick();
    expect(seen).toHaveLength(2);
    await c.stop();
  });
});

describe('incremental translation', () => {
  const gatewayClass = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'gw' } };
  const gateway = (name: string) => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: 'ns' },
    spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
  });
  const options = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' };

  it('translates only the affected gateway for a few changes and everything past the shared threshold', () => {
    const store = createStore();
    putObject(store, 'GatewayClass', { ...gatewayClass, spec: { controllerName: options.controllerName } }, 't');
    for (const n of ['a', 'b']) putObject(store, 'Gateway', gateway(n), 't');
    const t = new IncrementalTranslation(store);
    expect(t.run(options, []).full).toBe(true);
    putObject(store, 'Gateway', { ...gateway('a'), spec: { ...gateway('a').spec, listeners: [] } }, 't');
    const pass = t.run(options, [{ key: 'Gateway/ns/a', previous: undefined }]);
    expect(pass).toMatchObject({ full: false, gateways: ['ns/a'] });
    const many = Array.from({ length: FULL_TRANSLATE_THRESHOLD + 1 }, () => ({
      key: 'Gateway/ns/a',
      previous: undefined,
    }));
    expect(t.run(options, many)).toMatchObject({ full: true });
  });

  const route = (name: string, parent: string) => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, namespace: 'ns' },
    spec: {
      parentRefs: [{ name: parent }],
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: `/${name}` } }] }],
    },
  });

  it('translates each gateway once for a batch of changes, sliced or not, matching a full translation', async () => {
    const store = createStore();
    putObject(store, 'GatewayClass', { ...gatewayClass, spec: { controllerName: options.controllerName } }, 't');
    for (const n of ['a', 'b', 'c']) putObject(store, 'Gateway', gateway(n), 't');
    const plain = new IncrementalTranslation(store);
    const sliced = new IncrementalTranslation(store);
    plain.run(options, []);
    // Budget 0: the sliced pass yields after every gateway and status.
    await sliced.runSliced(options, [], createSlicer(0));
    const changes = Array.from({ length: FULL_TRANSLATE_THRESHOLD }, (_, i) => {
      const key = `HTTPRoute/ns/r${i}`;
      putObject(store, 'HTTPRoute', route(`r${i}`, i % 2 ? 'a' : 'b'), 't');
      return { key, previous: undefined };
    });
    const a = plain.run(options, changes);
    const b = await sliced.runSliced(options, changes, createSlicer(0));
    expect(a).toMatchObject({ full: false, gateways: ['ns/a', 'ns/b'] });
    expect(b).toEqual(a);
    const full = translateAll(store, options);
    expect(snapshots(plain.state!)).toEqual(snapshots(full));
    expect(snapshots(sliced.state!)).toEqual(snapshots(full));
    expect(sliced.state!.statuses).toEqual(full.statuses);
    const r = [...snapshots(full).get('ns/a')!.resources].filter((x) => x.kind === 'route');
    expect(r.length).toBeGreaterThan(0);
  });

  it('keeps the entry an object had before its first pending change', () => {
    const p = new PendingChanges();
    const first = { obj: gateway('a'), source: 'one' } as never;
    p.record('Gateway/ns/a', first);
    p.record('Gateway/ns/a', { obj: gateway('a'), source: 'two' } as never);
    const taken = p.take();
    expect(taken).toEqual([{ key: 'Gateway/ns/a', previous: first }]);
    expect(p.take()).toEqual([]);
    p.restore(taken);
    expect(p.take()).toEqual(taken);
  });
});
