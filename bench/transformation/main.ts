// Benchmark: the proxy's CPU cost per call of GwPolicy traffic.transformation — a route with 5 header
// transformations (3 set from CEL over the request, 1 add, 1 remove) and a body built from the request's JSON
// with 2 fields set, against the same route without them (routes.ts). The proxy runs alone in its own process
// (proxy.ts, the built runtime); this process is the load generator and the upstream, so only the proxy's own CPU
// (read from it per slice, GC threads included) is counted. Both sides POST the same JSON body, `concurrency` at
// a time, in short slices interleaved pair by pair (order alternating); each pair gives a shaped / plain ratio of
// CPU per call and the median of the ratios is the figure (goal ≤ 1.10×), with its quartiles and range.
// Then the engine alone (`messageView` + `applyStep`, the same plan) in a loop, figures of BENCH_ENGINE_CALLS.
// Bounded: BENCH_SECONDS per side (default 8) in BENCH_ROUNDS pairs (default 16), BENCH_CONCURRENCY (8).
// BENCH_BASELINE=<another checkout with dist/ built> serves and loops that build too, interleaved (A/B in one run).
// BENCH_STRICT=1 exits non-zero when the goal is missed. Needs dist/ (npx tsc -p tsconfig.build.json).
// Run: npx tsx bench/transformation/main.ts
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';
import type * as EngineModule from '../../src/proxy/policy/transformation.js';
import { readAll, startUpstream } from '../../test/proxy/http-forward-harness.js';
import { payload, requestHeaders, shapedTransformation } from './routes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 16);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const engineCalls = Number(process.env.BENCH_ENGINE_CALLS ?? 20_000);
const engineFigures = Number(process.env.BENCH_ENGINE_FIGURES ?? 5);
const baseline = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
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
    execArgv: ['--import', 'tsx'],
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
  /** Per pair, shaped / plain CPU per call: the geometric mean of its two slices' ratios. */
  ratios: number[];
}

/**
 * `rounds` pairs of slices on each twin (two processes of one build): in a slice one twin serves the plain route
 * and the other the shaped one at the same time, so both meet the same machine; the next slice swaps them, so a
 * difference between the two processes cancels out of the pair's ratio.
 */
async function measure(builds: [string, Proxy[]][]): Promise<Map<string, Sides>> {
  const out = new Map<string, Sides>(
    builds.map(([tag]) => [tag, { plain: { calls: 0, perCall: [] }, shaped: { calls: 0, perCall: [] }, ratios: [] }]),
  );
  const ms = (seconds * 1000) / rounds / 2;
  for (let r = 0; r < rounds; r++) {
    for (const [tag, [a, b]] of r % 2 === 0 ? builds : [...builds].reverse()) {
      const sides = out.get(tag)!;
      let product = 1;
      const swaps: [Proxy, Proxy][] = [
        [a!, b!],
        [b!, a!],
      ];
      for (const [plain, shaped] of swaps) {
        const [p, s] = await Promise.all([cpuPerCall(plain, 'plain', ms), cpuPerCall(shaped, 'shaped', ms)]);
        sides.plain.calls += p.n;
        sides.plain.perCall.push(p.us);
        sides.shaped.calls += s.n;
        sides.shaped.perCall.push(s.us);
        product *= s.us / p.us;
      }
      sides.ratios.push(Math.sqrt(product));
    }
  }
  return out;
}

/** One build's lines and the docs/performance.md table row; true when the goal is met. */
function report(tag: string, s: Sides, load: string): boolean {
  const r = sortedOf(s.ratios);
  const median = quantile(r, 0.5);
  const us = (side: Side): number => quantile(sortedOf(side.perCall), 0.5);
  const f = (x: number): string => x.toFixed(3);
  const met = median <= GOAL;
  console.log(
    `  ${tag.padEnd(5)} plain ${(s.plain.calls / seconds).toFixed(0)} calls/s, ${us(s.plain).toFixed(0)} µs CPU/call; shaped ${(s.shaped.calls / seconds).toFixed(0)} calls/s, ${us(s.shaped).toFixed(0)} µs CPU/call (medians of slices)`,
  );
  console.log(
    `  ${tag.padEnd(5)} shaped / plain proxy CPU per call: median ${f(median)}× of ${r.length} pairs, quartiles ${f(quantile(r, 0.25))}–${f(quantile(r, 0.75))}, range ${f(r[0] ?? NaN)}–${f(r.at(-1) ?? NaN)} (goal ≤ ${GOAL.toFixed(2)}×: ${met ? 'met' : 'missed'})`,
  );
  console.log(
    `  row: | ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC | ${tag} | ${load} | ${us(s.plain).toFixed(0)} | ${us(s.shaped).toFixed(0)} | ${f(median)}× | ${f(quantile(r, 0.25))}–${f(quantile(r, 0.75))} | ${f(r[0] ?? NaN)}–${f(r.at(-1) ?? NaN)} | ${met ? 'met' : 'missed'} |`,
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
  const builds: [string, Proxy[]][] = [];
  for (const [tag, checkout] of [['this', undefined], ...(baseline ? [['base', baseline]] : [])] as const)
    builds.push([
      tag,
      [await startProxy(tag, upstream.port, checkout), await startProxy(tag, upstream.port, checkout)],
    ]);
  const proxies = builds.flatMap(([, twins]) => twins);
  try {
    for (const p of proxies) for (const name of ['plain', 'shaped']) await slice(`${p.base}/${name}/x`, 1000); // JIT, connections
    const before = load();
    const sides = await measure(builds);
    const loads = `${before}–${load()}`;
    console.log(
      `transformation bench: the proxy's own CPU per call (its process alone), load average ${loads}; ${seconds}s per side in ${rounds} pairs of two ${((seconds * 1000) / rounds / 2).toFixed(0)} ms slices, twin processes ${concurrency} calls at a time each`,
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
