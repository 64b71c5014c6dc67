// Controller bursts (issue 16): 500 objects (250 HTTPRoutes, each with a GwPolicy) created at once across
// 10 gateways, then deleted at once, replayed through the controller's translation path
// (PendingChanges + IncrementalTranslation) two ways in one run:
// - per event: a pass per watch event, each translating the gateways that event reaches (the old way);
// - coalesced: the translate trigger (a pass once changes are quiet for 100 ms, at most 2 s after the first)
//   and applyChanges.
// Events arrive 2 ms apart (kubectl apply of 500 objects). Passes run for real (their CPU time is measured);
// the queue's waiting is simulated on a virtual clock, so the figures do not depend on machine load except
// pass durations. Reports passes, gateway translations, total CPU, the longest pass (the longest the
// controller's event loop is blocked) and the time from the last event to the last pass ending.
// Bounded: fixed sizes; exits 1 only with BENCH_STRICT=1 when a target is missed.
import { loadavg } from 'node:os';
import { TRANSLATE_MAX_WAIT_MS, TRANSLATE_QUIET_MS } from '../../src/controller/translate-trigger.js';
import { IncrementalTranslation, PendingChanges } from '../../src/controller/incremental.js';
import { createStore, getObject, putObject, removeObject, type Store } from '../../src/translate/objects/store.js';
import { objectKey, type Kind, type KubeObject } from '../../src/translate/objects/types.js';

const OPTIONS = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' };
const GATEWAYS = 10;
const ROUTES = 250;
const EVENT_GAP_MS = 2;
const GW = 'gateway.networking.k8s.io';

type Event = { kind: Kind; obj: KubeObject; remove: boolean };

function baseStore(): Store {
  const store = createStore();
  putObject(
    store,
    'GatewayClass',
    { kind: 'GatewayClass', metadata: { name: 'gw' }, spec: { controllerName: OPTIONS.controllerName } },
    'bench',
  );
  for (let g = 0; g < GATEWAYS; g++) {
    putObject(
      store,
      'Gateway',
      {
        apiVersion: `${GW}/v1`,
        kind: 'Gateway',
        metadata: { name: `gw-${g}`, namespace: 'default' },
        spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 8000 + g, protocol: 'HTTP' }] },
      },
      'bench',
    );
  }
  putObject(
    store,
    'Service',
    { kind: 'Service', metadata: { name: 'svc', namespace: 'default' }, spec: { ports: [{ port: 80 }] } },
    'bench',
  );
  return store;
}

function burst(remove: boolean): Event[] {
  const out: Event[] = [];
  for (let r = 0; r < ROUTES; r++) {
    out.push({
      kind: 'HTTPRoute',
      remove,
      obj: {
        apiVersion: `${GW}/v1`,
        kind: 'HTTPRoute',
        metadata: { name: `r-${r}`, namespace: 'default' },
        spec: {
          parentRefs: [{ name: `gw-${r % GATEWAYS}` }],
          rules: [
            { matches: [{ path: { type: 'PathPrefix', value: `/r${r}` } }], backendRefs: [{ name: 'svc', port: 80 }] },
          ],
        },
      },
    });
    out.push({
      kind: 'GwPolicy',
      remove,
      obj: {
        apiVersion: 'gw.dev/v1alpha1',
        kind: 'GwPolicy',
        metadata: { name: `p-${r}`, namespace: 'default' },
        spec: {
          targetRefs: [{ group: GW, kind: 'HTTPRoute', name: `r-${r}` }],
          traffic: { cors: { allowOrigins: [`https://r${r}.example`] } },
        },
      },
    });
  }
  return out;
}

interface Figures {
  passes: number;
  translations: number;
  cpuMs: number;
  longestPassMs: number;
  convergedMs: number;
}

/**
 * Replays `events` (EVENT_GAP_MS apart). `coalesce` false: a pass per event. True: a pass once no event came
 * for TRANSLATE_QUIET_MS, or TRANSLATE_MAX_WAIT_MS after the first pending one (translate-trigger.ts).
 */
function replay(store: Store, translation: IncrementalTranslation, events: Event[], coalesce: boolean): Figures {
  const pending = new PendingChanges();
  const before = translation.translations;
  let clock = 0;
  let firstAt: number | undefined,
    lastAt = 0;
  let passes = 0,
    cpu = 0,
    longest = 0;
  const due = (): number => Math.min(lastAt + TRANSLATE_QUIET_MS, (firstAt ?? 0) + TRANSLATE_MAX_WAIT_MS);
  const runPass = (at: number): void => {
    clock = Math.max(clock, at);
    firstAt = undefined;
    const t0 = process.cpuUsage();
    const w0 = performance.now();
    translation.run(OPTIONS, pending.take());
    const wall = performance.now() - w0;
    const u = process.cpuUsage(t0);
    cpu += (u.user + u.system) / 1000;
    longest = Math.max(longest, wall);
    clock += wall;
    passes++;
  };
  for (let i = 0; i < events.length; i++) {
    const at = i * EVENT_GAP_MS;
    // A pass due before this event arrives runs first; events that arrived while it ran wait for the next.
    if (firstAt !== undefined && due() <= at) runPass(due());
    const e = events[i] as Event;
    const key = `${e.obj.metadata.namespace}/${e.obj.metadata.name}`;
    const previous = getObject(store, e.kind, key);
    if (e.remove) removeObject(store, e.kind, key);
    else putObject(store, e.kind, e.obj, 'bench');
    pending.record(objectKey(e.kind, key), previous);
    const arrived = Math.max(clock, at);
    if (!coalesce) runPass(arrived);
    else {
      firstAt ??= arrived;
      lastAt = arrived;
    }
  }
  if (firstAt !== undefined) runPass(due());
  const last = (events.length - 1) * EVENT_GAP_MS;
  return {
    passes,
    translations: translation.translations - before,
    cpuMs: cpu,
    longestPassMs: longest,
    convergedMs: clock - last,
  };
}

function measure(coalesce: boolean): { create: Figures; remove: Figures; rssMb: number } {
  const store = baseStore();
  const translation = new IncrementalTranslation(store);
  translation.run(OPTIONS, []);
  const create = replay(store, translation, burst(false), coalesce);
  const remove = replay(store, translation, burst(true), coalesce);
  return { create, remove, rssMb: process.memoryUsage().rss / 2 ** 20 };
}

const row = (name: string, f: Figures): string =>
  `| ${name} | ${f.passes} | ${f.translations} | ${f.cpuMs.toFixed(0)} | ${f.longestPassMs.toFixed(1)} | ${f.convergedMs.toFixed(0)} |`;

const perEvent = measure(false);
const batched = measure(true);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; ${ROUTES * 2} objects on ${GATEWAYS} gateways, one every ${EVENT_GAP_MS} ms`,
);
console.log('| burst | passes | gateway translations | CPU ms | longest pass ms | last event → converged ms |');
console.log('|---|---|---|---|---|---|');
console.log(row('create, pass per event', perEvent.create));
console.log(row('create, coalesced', batched.create));
console.log(row('delete, pass per event', perEvent.remove));
console.log(row('delete, coalesced', batched.remove));
console.log(
  `CPU ratio coalesced / per event: create ${(batched.create.cpuMs / perEvent.create.cpuMs).toFixed(3)}, delete ${(batched.remove.cpuMs / perEvent.remove.cpuMs).toFixed(3)}; RSS ${batched.rssMb.toFixed(0)} MB`,
);
const missed = [
  batched.create.passes >= 10 && 'create passes ≥ 10',
  batched.create.longestPassMs > 100 && 'create longest pass > 100 ms',
  batched.create.convergedMs > 2000 && 'create converged > 2 s after the last event',
].filter(Boolean);
if (missed.length) console.log(`targets missed: ${missed.join('; ')}`);
if (missed.length && process.env.BENCH_STRICT === '1') process.exit(1);
