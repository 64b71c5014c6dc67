// Translation benchmark (issue 5): full translation of the synthetic cluster, re-translation after one
// policy change at two cluster sizes (only affected gateways are recomputed), and controller RSS.
// Bounded: fixed sizes and iteration counts; exits 1 when a target is missed.
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { applyChange, translateAll, type TranslationState } from '../../src/translate/state.js';
import { getObject, putObject, storeSize } from '../../src/translate/objects/store.js';
import { syntheticCluster, type Cluster } from './cluster.js';

const OPTIONS = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' };
const CHANGES = 100;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** CPU milliseconds of this process: the machine running benchmarks is shared, so wall time is noisy. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
}

function oneChange(c: Cluster, state: TranslationState): number {
  const times: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const key = c.rulePolicies[(i * 7919) % c.rulePolicies.length] as string;
    const prev = getObject(c.store, 'GwPolicy', key);
    if (!prev) throw new Error(`missing ${key}`);
    const spec = prev.obj.spec as { traffic: { authorization: { policy: { matchExpressions: string[] } } } };
    const obj = {
      ...prev.obj,
      spec: { ...spec, traffic: { authorization: { policy: { matchExpressions: [`request.path.size() > ${i}`] } } } },
    };
    const t0 = process.cpuUsage();
    putObject(c.store, 'GwPolicy', obj, 'bench');
    applyChange(state, c.store, `GwPolicy/${key}`, prev);
    times.push(cpuMs(t0));
  }
  return median(times);
}

// The RSS figure is taken after a full collection, so it measures what the controller keeps.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let small: Cluster | undefined = syntheticCluster(0.1);
const smallObjects = storeSize(small.store);
const changeSmall = oneChange(small, translateAll(small.store, OPTIONS));
small = undefined;
gc();

const large = syntheticCluster(1);
const rules = (large.counts.HTTPRoute ?? 0) * 4;
const c0 = process.cpuUsage();
const w0 = performance.now();
const state = translateAll(large.store, OPTIONS);
const full = cpuMs(c0);
const fullWall = performance.now() - w0;
// Steady state: the store, every snapshot, every status and the dependency index, nothing else.
gc();
const mem = process.memoryUsage();
const rss = mem.rss / 2 ** 20;
const c1 = process.cpuUsage();
translateAll(large.store, OPTIONS);
const fullWarm = cpuMs(c1);
const changeLarge = oneChange(large, state);

const rows: [string, string, string, boolean][] = [
  [
    'full translation, first run (100 gateways, 10,000 rules, 10,000 policies, 1,000 backends), CPU',
    `${full.toFixed(0)} ms (wall ${fullWall.toFixed(0)} ms)`,
    '≤ 2000 ms',
    full <= 2000,
  ],
  ['full translation, second run (JIT warm), CPU', `${fullWarm.toFixed(0)} ms`, '', true],
  [
    `one policy change, ~1k objects (${smallObjects} objects), median of ${CHANGES}, CPU`,
    `${changeSmall.toFixed(2)} ms`,
    '',
    true,
  ],
  [
    `one policy change, ~10k objects (${storeSize(large.store)} objects), median of ${CHANGES}, CPU`,
    `${changeLarge.toFixed(2)} ms`,
    `≤ 2 × ${changeSmall.toFixed(2)} ms`,
    changeLarge <= 2 * changeSmall,
  ],
  [
    'controller RSS with the 10k-object store and all snapshots and statuses held',
    `${rss.toFixed(0)} MB (heap used ${(mem.heapUsed / 2 ** 20).toFixed(0)} MB)`,
    '≤ 300 MB',
    rss <= 300,
  ],
];
console.log(
  `cluster: ${JSON.stringify(large.counts)}; route rules: ${rules}; snapshots: ${[...state.gateways.values()].filter((g) => g.ours).length}`,
);
console.log('| measure | result | target | ok |\n| --- | --- | --- | --- |');
for (const [m, r, t, ok] of rows) console.log(`| ${m} | ${r} | ${t} | ${ok ? 'yes' : 'NO'} |`);
if (rows.some((r) => !r[3])) process.exitCode = 1;
