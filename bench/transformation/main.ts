// Benchmark: the proxy's CPU cost per call of GwPolicy traffic.transformation — a route with 5 header
// transformations (3 set from CEL over the request, 1 add, 1 remove) and a body built from the request's JSON
// with 2 fields set, against the same route without them (routes.ts). The proxy runs alone in its own process
// (proxy.ts, the built runtime); this process is the load generator and the upstream, so only the proxy's own CPU
// (`process.cpuUsage()` read from it over IPC around each slice, GC threads included) is counted. Both sides POST
// the same JSON body, `concurrency` at a time, in slices of some seconds, one proxy loaded at a time: each pair
// of adjacent slices (plain then shaped, the order swapped every other pair) gives a shaped / plain ratio of CPU
// per call, and the median of the ratios is the figure (goal ≤ 1.10×), with its quartiles and range.
// Then the engine alone (`messageView` + `applyStep`, the same plan) in a loop, figures of BENCH_ENGINE_CALLS.
// Bounded: BENCH_PAIRS (default 8) pairs of BENCH_SLICE_SECONDS (default 2.5) per build, after a 2 s warm-up:
// 42 s of load with defaults, 84 s with a baseline; BENCH_CONCURRENCY (8).
// BENCH_BASELINE=<another checkout with dist/ built> serves and loops that build too, interleaved (A/B in one run).
// BENCH_STRICT=1 exits non-zero when the goal is missed. Needs dist/ (npx tsc -p tsconfig.build.json).
// Run: npx tsx bench/transformation/main.ts
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import type * as EngineModule from '../../src/proxy/policy/transformation.js';
import { readAll, startUpstream } from '../../test/proxy/http-forward-harness.js';
import { payload, requestHeaders, shapedTransformation } from './routes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const sliceMs = Number(process.env.BENCH_SLICE_SECONDS ?? 2.5) * 1000;
const pairs = Number(process.env.BENCH_PAIRS ?? 8);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const engineCalls = Number(process.env.BENCH_ENGINE_CALLS ?? 20_000);
const engineFigures = Number(process.env.BENCH_ENGINE_FIGURES ?? 5);
const baseline = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
/** More options for the proxies' node (BENCH_NODE_ARGS, split on spaces): `--cpu-prof --cpu-prof-dir=<dir>` to profile them. */
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const GOAL = 1.1;

/** A proxy process: where it listens, and its CPU microseconds so far. */
interface Proxy {
  tag: string;
  child: ChildProcess;
  base: string;
  cpuUs(): Promise<number>;
}

async function startProxy(tag: string, upstreamPort: number, checkout?: string): Promise<Proxy> {
  const child = fork(path.join(here, 'proxy.ts'), [String(upstreamPort), ...(checkout ? [checkout] : [])], {
    execArgv: ['--import', 'tsx', ...nodeArgs],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(pick: (m: unknown) => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the ${tag} proxy exited with ${code}`));
      const onMessage = (m: unknown): void => {
        const v = pick(m);
        if (v === undefined) return;
        child.off('message', onMessage).off('exit', onExit);
        resolve(v);
      };
      child.on('message', onMessage).once('exit', onExit);
    });
  const field = (name: string) => (m: unknown) => (m as Record<string, unknown> | null)?.[name];
  const base = await next(field('url') as (m: unknown) => string | undefined);
  return {
    tag,
    child,
    base,
    cpuUs: () => {
      const got = next(field('cpuUs') as (m: unknown) => number | undefined);
      child.send('cpu');
      return got;
    },
  };
}

const agent = new Agent({ connections: concurrency });

/** Calls to `url` for `ms`, `concurrency` at a time: how many answered. */
async function slice(url: string, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const res = await request(url, { dispatcher: agent, method: 'POST', headers: requestHeaders, body: payload });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
        n++;
      }
    }),
  );
  return n;
}

/** The proxy's CPU microseconds per call over one slice of `route`. */
async function cpuPerCall(p: Proxy, route: string, ms: number): Promise<{ n: number; us: number }> {
  const before = await p.cpuUs();
  const n = await slice(`${p.base}/${route}/x`, ms);
  return { n, us: ((await p.cpuUs()) - before) / n };
}

const sortedOf = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
/** The value at fraction `q` of the sorted values (linear between neighbours). */
function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = sorted[Math.floor(at)] ?? NaN;
  const hi = sorted[Math.ceil(at)] ?? NaN;
  return lo + (hi - lo) * (at - Math.floor(at));
}

interface Side {
  calls: number;
  perCall: number[];
}
interface Sides {
  plain: Side;
  shaped: Side;
  /** Per pair of adjacent slices, shaped / plain proxy CPU per call. */
  ratios: number[];
}

/**
 * `pairs` pairs of slices per build, one proxy loaded at a time: in each pair the build's proxy serves the plain
 * route for a slice and the shaped route for the next (the order swapped every other pair, and the builds'
 * order too, so a drift of the machine's load weighs on both sides alike).
 */
async function measure(builds: [string, Proxy][]): Promise<Map<string, Sides>> {
  const out = new Map<string, Sides>(
    builds.map(([tag]) => [tag, { plain: { calls: 0, perCall: [] }, shaped: { calls: 0, perCall: [] }, ratios: [] }]),
  );
  for (let r = 0; r < pairs; r++) {
    for (const [tag, p] of r % 2 === 0 ? builds : [...builds].reverse()) {
      const sides = out.get(tag)!;
      const got: Record<string, number> = {};
      for (const route of r % 2 === 0 ? ROUTES : [...ROUTES].reverse()) {
        const c = await cpuPerCall(p, route, sliceMs);
        sides[route].calls += c.n;
        sides[route].perCall.push(c.us);
        got[route] = c.us;
      }
      sides.ratios.push(got.shaped! / got.plain!);
    }
  }
  return out;
}

const ROUTES = ['plain', 'shaped'] as const;

/** One build's lines and the docs/performance.md table row; true when the goal is met. */
function report(tag: string, s: Sides, load: string): boolean {
  const r = sortedOf(s.ratios);
  const median = quantile(r, 0.5);
  const us = (side: Side): number => quantile(sortedOf(side.perCall), 0.5);
  const f = (x: number): string => x.toFixed(3);
  const met = median <= GOAL;
  const side = pairs * (sliceMs / 1000);
  console.log(
    `  ${tag.padEnd(5)} plain ${(s.plain.calls / side).toFixed(0)} calls/s, ${us(s.plain).toFixed(1)} µs CPU/call; shaped ${(s.shaped.calls / side).toFixed(0)} calls/s, ${us(s.shaped).toFixed(1)} µs CPU/call (medians of slices)`,
  );
  console.log(
    `  ${tag.padEnd(5)} shaped / plain proxy CPU per call: median ${f(median)}× of ${r.length} pairs, quartiles ${f(quantile(r, 0.25))}–${f(quantile(r, 0.75))}, range ${f(r[0] ?? NaN)}–${f(r.at(-1) ?? NaN)} (goal ≤ ${GOAL.toFixed(2)}×: ${met ? 'met' : 'missed'})`,
  );
  console.log(
    `  row: | ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC | ${tag} | ${load} | ${us(s.plain).toFixed(1)} | ${us(s.shaped).toFixed(1)} | ${f(median)}× | ${f(quantile(r, 0.25))}–${f(quantile(r, 0.75))} | ${f(r[0] ?? NaN)}–${f(r.at(-1) ?? NaN)} | ${met ? 'met' : 'missed'} |`,
  );
  return met;
}

type Engine = typeof EngineModule;

/** CPU microseconds per request of the engine alone (the request view, the 5 header edits and the body). */
function engineLoop(engine: Engine): number {
  const plan = engine.compileTransformation(shapedTransformation, 'traffic.transformation', (at, message) => {
    throw new Error(`${at}: ${message}`);
  });
  const step = plan?.request;
  if (!step) throw new Error('no request step');
  const cpu = process.cpuUsage();
  for (let i = 0; i < engineCalls; i++) {
    const message = {
      method: 'POST',
      path: '/shaped/x',
      headers: { host: 'gw.local', ...requestHeaders },
      body: Buffer.from(payload),
    };
    const out = engine.applyStep(step, message, { request: engine.messageView(message, step) }, 'at');
    if (out instanceof Error) throw out;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / engineCalls;
}

const load = (): string => (loadavg()[0] ?? 0).toFixed(2);

async function main(): Promise<boolean> {
  const upstream = await startUpstream((req, res) => {
    void readAll(req).then((body) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  const builds: [string, Proxy][] = [];
  for (const [tag, checkout] of [['this', undefined], ...(baseline ? [['base', baseline]] : [])] as const)
    builds.push([tag, await startProxy(tag, upstream.port, checkout)]);
  const proxies = builds.map(([, p]) => p);
  try {
    for (const p of proxies) for (const name of ROUTES) await slice(`${p.base}/${name}/x`, 1000); // JIT, connections
    const before = load();
    const sides = await measure(builds);
    const loads = `${before}–${load()}`;
    console.log(
      `transformation bench: the proxy's own CPU per call (its process alone), load average ${loads}; ${pairs} pairs of ${(sliceMs / 1000).toFixed(1)} s slices per build (plain, shaped), one proxy loaded at a time, ${concurrency} calls at a time`,
    );
    const busiest = Math.max(Number(before), Number(load()));
    if (busiest > availableParallelism())
      console.log(
        `  (the load average ${busiest.toFixed(1)} is above the ${availableParallelism()} cores: other work shared this proxy's cores, so the CPU per call is inflated and the ratio noisy; rerun on a quiet machine for a figure to quote)`,
      );
    const met = builds.map(([tag]) => report(tag, sides.get(tag)!, loads)).every(Boolean);
    const engines: [string, Engine][] = [];
    for (const [tag, checkout] of [['this', root], ...(baseline ? [['base', baseline]] : [])] as const)
      engines.push([
        tag,
        (await import(pathToFileURL(path.join(checkout, 'dist/proxy/policy/transformation.js')).href)) as Engine,
      ]);
    const figures = new Map(engines.map(([tag]) => [tag, [] as number[]]));
    engineLoop(engines[0]![1]); // warm-up
    for (let i = 0; i < engineFigures; i++) for (const [tag, e] of engines) figures.get(tag)!.push(engineLoop(e));
    for (const [tag, xs] of figures)
      console.log(
        `  ${tag.padEnd(5)} engine alone (load average ${load()}): ${xs.map((x) => x.toFixed(1)).join(', ')} µs CPU per request (median ${quantile(sortedOf(xs), 0.5).toFixed(1)})`,
      );
    return met;
  } finally {
    for (const p of proxies) p.child.disconnect();
    await agent.close();
    await upstream.close();
  }
}

const met = await main();
if (process.env.BENCH_STRICT === '1' && !met) process.exitCode = 1;
