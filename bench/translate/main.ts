// Translation benchmark (issues 5, 21, 42): full translation of the synthetic cluster, re-translation after
// one policy change at two cluster sizes (only affected gateways are recomputed), and controller RSS with
// the encoded bodies it serves proxies held (each snapshot published to the controller's xDS source).
// Bounded: fixed sizes and iteration counts; exits 1 when a target is missed.
//
// Each figure comes from a child process running plain JavaScript, as `gw controller` does: this bench is
// transpiled to a temporary folder and loads a checkout's compiled translator (`dist/translate`), so the
// RSS holds no TypeScript loader (tsx alone adds ~36 MB). By default the checkout is this one (`make build`
// first; with dist/ older than src/ the sources run in-process through tsx instead, and the RSS says so).
// BENCH_BASELINE=<checkout> runs this tree's dist and the baseline's alternately (BENCH_ROUNDS rounds,
// default 1) and prints both with their ratio: an A/B in one run. BENCH_PROF=<dir> gives each child
// --cpu-prof. Each child runs with the Node.js flags its tree's chart gives the controller
// (controller.nodeOptions); BENCH_NODE_FLAGS replaces them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import type * as Yaml from 'yaml';
import { runInNewContext } from 'node:vm';
import type * as TS from 'typescript';
import type * as StateModule from '../../src/translate/state.js';
import type * as StoreModule from '../../src/translate/objects/store.js';
import type * as SourceModule from '../../src/controller/snapshot-source.js';
import { syntheticCluster, type Cluster } from './cluster.js';

const OPTIONS = { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' };
const CHANGES = 100;
/** Issue 21's targets at 10k objects. */
const TARGET = { fullMs: 1000, changeMs: 5, rssMb: 150 };
const here = path.dirname(fileURLToPath(import.meta.url));

interface Api {
  state: typeof StateModule;
  store: typeof StoreModule;
  source: typeof SourceModule;
}

/** One figure and the 1-minute load average when it was taken. */
interface Figure {
  value: number;
  load: number;
}

interface Figures {
  tree: string;
  /** The Node.js flags the child ran with (the tree's chart's controller.nodeOptions). */
  flags?: string;
  counts: Record<string, number>;
  smallObjects: number;
  largeObjects: number;
  snapshots: number;
  full: Figure;
  fullWall: number;
  fullWarm: Figure;
  changeSmall: Figure;
  changeLarge: Figure;
  rss: Figure;
  heapUsedMb: number;
  /** Bytes of the encoded resources the controller holds to serve, all gateways (MB). */
  bodiesMb: number;
}

async function loadApi(tree: string | undefined): Promise<Api> {
  const base = tree ? pathToFileURL(path.join(path.resolve(tree), 'dist/translate/')).href : '../../src/translate/';
  return {
    state: (await import(`${base}state.js`)) as typeof StateModule,
    store: (await import(`${base}objects/store.js`)) as typeof StoreModule,
    source: (await import(`${base}../controller/snapshot-source.js`)) as typeof SourceModule,
  };
}

function figure(value: number): Figure {
  return { value, load: loadavg()[0] as number };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** CPU milliseconds of this process: the machine running benchmarks is shared, so wall time is noisy. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
}

function oneChange(api: Api, c: Cluster, state: StateModule.TranslationState): number {
  const times: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const key = c.rulePolicies[(i * 7919) % c.rulePolicies.length] as string;
    const prev = api.store.getObject(c.store, 'GwPolicy', key);
    if (!prev) throw new Error(`missing ${key}`);
    const spec = prev.obj.spec as { traffic: { authorization: { policy: { matchExpressions: string[] } } } };
    const obj = {
      ...prev.obj,
      spec: { ...spec, traffic: { authorization: { policy: { matchExpressions: [`request.path.size() > ${i}`] } } } },
    };
    const t0 = process.cpuUsage();
    api.store.putObject(c.store, 'GwPolicy', obj, 'bench');
    api.state.applyChange(state, c.store, `GwPolicy/${key}`, prev);
    times.push(cpuMs(t0));
  }
  return median(times);
}

async function measure(tree: string | undefined): Promise<Figures> {
  const api = await loadApi(tree);
  // The RSS figure is taken after a full collection, so it measures what the controller keeps.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;

  let small: Cluster | undefined = syntheticCluster(api.store, 0.1);
  const smallObjects = api.store.storeSize(small.store);
  const changeSmall = figure(oneChange(api, small, api.state.translateAll(small.store, OPTIONS)));
  small = undefined;
  gc();

  const large = syntheticCluster(api.store, 1);
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const state = api.state.translateAll(large.store, OPTIONS);
  const full = figure(cpuMs(c0));
  const fullWall = performance.now() - w0;
  // What `gw controller` serves: every snapshot encoded and held by its xDS source (issue 42 counts them).
  const served = api.source.createControllerSource();
  for (const [gateway, snapshot] of api.state.snapshots(state)) served.publish(gateway, snapshot);
  // Steady state: the store, every snapshot, every status, the dependency index and the bodies, nothing else.
  gc();
  const mem = process.memoryUsage();
  const rss = figure(mem.rss / 2 ** 20);
  const c1 = process.cpuUsage();
  api.state.translateAll(large.store, OPTIONS);
  const fullWarm = figure(cpuMs(c1));
  let bodies = 0;
  for (const gateway of state.gateways.keys())
    for (const r of served.get(gateway)?.values() ?? []) bodies += r.body.length;
  const changeLarge = figure(oneChange(api, large, state));
  return {
    tree: tree ?? 'src (tsx)',
    counts: large.counts,
    smallObjects,
    largeObjects: api.store.storeSize(large.store),
    snapshots: [...state.gateways.values()].filter((g) => g.ours).length,
    full,
    fullWall,
    fullWarm,
    changeSmall,
    changeLarge,
    rss,
    heapUsedMb: mem.heapUsed / 2 ** 20,
    bodiesMb: bodies / 2 ** 20,
  };
}

const ms = (f: Figure, digits = 0) => `${f.value.toFixed(digits)} ms (load ${f.load.toFixed(2)})`;
const mb = (f: Figure) => `${f.value.toFixed(0)} MB (load ${f.load.toFixed(2)})`;

type Row = [measure: string, pick: (f: Figures) => Figure, show: (f: Figure) => string, target: string, ok?: number];

function rows(f: Figures): Row[] {
  return [
    [
      'full translation, first run (100 gateways, 10,000 rules, 10,000 policies, 1,000 backends), CPU',
      (x) => x.full,
      (v) => ms(v),
      `≤ ${TARGET.fullMs} ms`,
      TARGET.fullMs,
    ],
    ['full translation, second run (JIT warm), CPU', (x) => x.fullWarm, (v) => ms(v), ''],
    [
      `one policy change, ~1k objects (${f.smallObjects} objects), median of ${CHANGES}, CPU`,
      (x) => x.changeSmall,
      (v) => ms(v, 2),
      '',
    ],
    [
      `one policy change, ~10k objects (${f.largeObjects} objects), median of ${CHANGES}, CPU`,
      (x) => x.changeLarge,
      (v) => ms(v, 2),
      `≤ ${TARGET.changeMs} ms`,
      TARGET.changeMs,
    ],
    [
      'controller RSS with the 10k-object store, all snapshots and statuses, and the encoded bodies served held',
      (x) => x.rss,
      mb,
      `≤ ${TARGET.rssMb} MB`,
      TARGET.rssMb,
    ],
    ['of which JavaScript heap in use', (x) => ({ value: x.heapUsedMb, load: x.rss.load }), mb, ''],
    ['of which encoded bodies (bytes)', (x) => ({ value: x.bodiesMb, load: x.rss.load }), mb, ''],
  ];
}

function report(f: Figures): boolean {
  console.log(
    `${f.tree}${f.flags ? ` (node ${f.flags})` : ''}: cluster ${JSON.stringify(f.counts)}; snapshots: ${f.snapshots}; first run wall ${f.fullWall.toFixed(0)} ms; heap used ${f.heapUsedMb.toFixed(0)} MB; encoded bodies ${f.bodiesMb.toFixed(1)} MB`,
  );
  console.log('| measure | result | target | ok |\n| --- | --- | --- | --- |');
  let ok = true;
  for (const [m, pick, show, t, limit] of rows(f)) {
    const met = limit === undefined || pick(f).value <= limit;
    ok &&= met;
    console.log(`| ${m} | ${show(pick(f))} | ${t} | ${limit === undefined ? '' : met ? 'yes' : 'NO'} |`);
  }
  return ok;
}

/** main.ts and cluster.ts as plain JavaScript in a temporary folder (their imports of src/ are types only). */
function transpiled(): string {
  const ts = createRequire(import.meta.url)('typescript') as typeof TS;
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-bench-translate-'));
  for (const f of ['main.ts', 'cluster.ts']) {
    const out = ts.transpileModule(readFileSync(path.join(here, f), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(
      path.join(dir, f.replace(/\.ts$/, '.mjs')),
      out.outputText.replace("'./cluster.js'", "'./cluster.mjs'"),
    );
  }
  return dir;
}

function child(js: string, tree: string, prof: string | undefined, tag: string): Figures {
  const flags = [...nodeFlags(tree), ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${path.join(prof, tag)}`] : [])];
  const r = spawnSync(process.execPath, [...flags, path.join(js, 'main.mjs')], {
    env: { ...process.env, BENCH_TREE: tree, BENCH_BASELINE: '', BENCH_JSON: '1' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`bench child for ${tree} exited with ${r.status}`);
  return { ...(JSON.parse(r.stdout.trim().split('\n').pop() as string) as Figures), flags: nodeFlags(tree).join(' ') };
}

/**
 * The Node.js flags `tree`'s chart runs the controller with (`controller.nodeOptions`), so each tree is
 * measured as it ships; BENCH_NODE_FLAGS replaces them for both sides.
 */
function nodeFlags(tree: string): string[] {
  let text = process.env.BENCH_NODE_FLAGS;
  if (text === undefined) {
    const values = readFileSync(path.join(tree, 'charts/gw/values.yaml'), 'utf8');
    // Required here, not imported: the child runs this file from a temporary folder without node_modules.
    const { parse } = createRequire(import.meta.url)('yaml') as typeof Yaml;
    const c = (parse(values) as { controller?: { nodeOptions?: unknown } }).controller;
    text = typeof c?.nodeOptions === 'string' ? c.nodeOptions : '';
  }
  return text.split(' ').filter(Boolean);
}

/** Newest modification time of the files under `dir` (ms). */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) t = Math.max(t, statSync(path.join(e.parentPath, e.name)).mtimeMs);
  return t;
}

/** This tree's dist and the baseline's, alternately; the ratio of each figure (this / baseline). */
function abRun(baseline: string): boolean {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  const a: Figures[] = [];
  const b: Figures[] = [];
  const js = transpiled();
  try {
    for (let i = 0; i < rounds; i++) {
      a.push(child(js, mine, process.env.BENCH_PROF, `this-${i}`));
      b.push(child(js, baseline, process.env.BENCH_PROF, `baseline-${i}`));
    }
  } finally {
    rmSync(js, { recursive: true, force: true });
  }
  console.log(`A/B in one run: this = ${mine}/dist, baseline = ${path.resolve(baseline)}/dist, ${rounds} round(s)`);
  console.log(`node flags: this '${a[0]?.flags ?? ''}', baseline '${b[0]?.flags ?? ''}'`);
  console.log(
    '| measure | round | this | baseline | this / baseline | target |\n| --- | --- | --- | --- | --- | --- |',
  );
  let ok = true;
  for (const [m, pick, show, t, limit] of rows(a[0] as Figures))
    for (let i = 0; i < rounds; i++) {
      const x = pick(a[i] as Figures);
      const y = pick(b[i] as Figures);
      if (limit !== undefined && x.value > limit) ok = false;
      console.log(`| ${m} | ${i + 1} | ${show(x)} | ${show(y)} | ${(x.value / y.value).toFixed(2)} | ${t} |`);
    }
  return ok;
}

const mine = path.resolve(here, '../..');
if (process.env.BENCH_BASELINE) {
  if (!abRun(process.env.BENCH_BASELINE)) process.exitCode = 1;
} else if (process.env.BENCH_TREE) {
  const f = await measure(process.env.BENCH_TREE);
  if (process.env.BENCH_JSON) console.log(JSON.stringify(f));
  else if (!report(f)) process.exitCode = 1;
} else if (
  newest(path.join(mine, 'src')) >
  (statSync(path.join(mine, 'dist/translate/state.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0)
) {
  console.log('dist/ is older than src/ (run make build): sources through tsx, in this process (RSS includes tsx)');
  if (!report(await measure(undefined))) process.exitCode = 1;
} else {
  const js = transpiled();
  try {
    if (!report(child(js, mine, process.env.BENCH_PROF, 'this'))) process.exitCode = 1;
  } finally {
    rmSync(js, { recursive: true, force: true });
  }
}
