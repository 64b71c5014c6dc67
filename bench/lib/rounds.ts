// The round loops the proxy benchmarks share. Absolute figures move with the machine's load (two cores shared by
// many jobs), so every bench runs its sides back to back in each round and reports medians and ratios:
// - `timedRounds`: each side for a slice of time per round, the order reversed every other round; per round,
//   each side's CPU per request over the first side's (bench/health, bench/backend-identity).
// - `countedRounds`: a fixed number of requests per side and round, CPU of this process and of a helper process
//   (/proc), then a run of lone requests for latency (bench/ext-authz, bench/rate-limit).
import { readFileSync } from 'node:fs';
import { request, type Agent } from 'node:http';
import { loadavg } from 'node:os';

/** The median: the middle value, or the mean of the two middle values of an even count. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/** The 99th percentile (nearest rank below). */
export function p99(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] ?? 0;
}

/** A process's user + system CPU so far, in microseconds (/proc clock ticks, 100 per second). */
export function processCpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** A GET of `path` on 127.0.0.1:`port` through `agent` that resolves on a 200 once the body is read. */
export function getter(port: number, agent: Agent): (path: string) => Promise<void> {
  return (path) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
        res
          .resume()
          .on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`${path}: status ${res.statusCode}`)),
          );
      });
      req.on('error', reject).end();
    });
}

export interface TimedRoundsOptions {
  /** The sides by name; the first is the one the others are divided by. */
  sides: readonly string[];
  /** Sends one request of `side` and resolves once it is answered (throws on a failed one). */
  send: (side: string) => Promise<void>;
  seconds: number;
  rounds: number;
  concurrency: number;
}

export interface TimedRounds {
  /** Per side: requests and CPU microseconds over all rounds. */
  totals: Record<string, { n: number; cpu: number }>;
  /** Per side but the first: each round's CPU per request divided by the first side's. */
  ratios: Record<string, number[]>;
  /** The one-minute load average before and after the rounds. */
  load: { before: number; after: number };
}

/** Requests of `side` for `ms`, `concurrency` at a time: count and CPU microseconds per request. */
async function timedSide(o: TimedRoundsOptions, side: string, ms: number): Promise<{ n: number; cpuUs: number }> {
  const until = Date.now() + ms;
  const cpu = process.cpuUsage();
  let n = 0;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (Date.now() < until) {
        await o.send(side);
        n++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { n, cpuUs: (used.user + used.system) / n };
}

/** Each side for `seconds` in all, split over `rounds` (after a 300 ms warm-up each: connections, JIT). */
export async function timedRounds(o: TimedRoundsOptions): Promise<TimedRounds> {
  const [first, ...others] = o.sides;
  const totals: Record<string, { n: number; cpu: number }> = {};
  const ratios: Record<string, number[]> = Object.fromEntries(others.map((s) => [s, []]));
  for (const side of o.sides) await timedSide(o, side, 300);
  const before = loadOne();
  for (let r = 0; r < o.rounds; r++) {
    const order = r % 2 === 0 ? o.sides : [...o.sides].reverse();
    const round: Record<string, number> = {};
    for (const side of order) {
      const got = await timedSide(o, side, (o.seconds * 1000) / o.rounds);
      const t = (totals[side] ??= { n: 0, cpu: 0 });
      t.n += got.n;
      t.cpu += got.cpuUs * got.n;
      round[side] = got.cpuUs;
    }
    for (const side of others) ratios[side]?.push((round[side] ?? 0) / (round[first ?? ''] ?? 1));
  }
  return { totals, ratios, load: { before, after: loadOne() } };
}

/** The report of `timedRounds`: a heading naming the bench, requests per second and CPU per side, the ratios. */
export function printTimedRounds(bench: string, o: TimedRoundsOptions, got: TimedRounds): void {
  const first = o.sides[0] ?? '';
  console.log(
    `${bench} bench (load average ${got.load.before.toFixed(2)} before, ${got.load.after.toFixed(2)} after; ${o.seconds}s per side in ${o.rounds} rounds, ${o.concurrency} at a time)`,
  );
  for (const [name, t] of Object.entries(got.totals))
    console.log(
      `  ${name.padEnd(7)} ${(t.n / o.seconds).toFixed(0).padStart(6)} req/s  ${(t.cpu / t.n).toFixed(0).padStart(6)} µs CPU/request`,
    );
  for (const [name, v] of Object.entries(got.ratios))
    console.log(
      `  ${name} / ${first} CPU per request: median ${median(v).toFixed(2)}× (rounds: ${v.map((r) => r.toFixed(2)).join(', ')})`,
    );
}

export interface CountedRoundsOptions {
  /** The sides by name, each the path prefix its requests go to. */
  sides: Record<string, string>;
  get: (path: string) => Promise<void>;
  /** The helper process whose CPU each request costs too (ext_authz's OPA, the rate-limit service). */
  helperPid: number;
  requests: number;
  concurrency: number;
  /** Requests sent one at a time per side and round, for latency. */
  sequential: number;
  rounds: number;
}

/** Per side: CPU microseconds per request of this process and of the helper (one value a round), latencies in ms. */
export type CountedRounds = Map<string, { proxy: number[]; helper: number[]; latencies: number[] }>;

async function cpuPerRequest(o: CountedRoundsOptions, path: string): Promise<{ proxy: number; helper: number }> {
  let next = 0;
  const t0 = process.cpuUsage();
  const h0 = processCpuUs(o.helperPid);
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next < o.requests) await o.get(`${path}/${next++}`);
    }),
  );
  const u = process.cpuUsage(t0);
  return { proxy: (u.user + u.system) / o.requests, helper: (processCpuUs(o.helperPid) - h0) / o.requests };
}

/** Latencies (ms) of one request at a time: what a lone client waits. */
async function latencies(o: CountedRoundsOptions, path: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < o.sequential; i++) {
    const t = performance.now();
    await o.get(`${path}/${i}`);
    out.push(performance.now() - t);
  }
  return out;
}

/** `rounds` rounds of every side in turn, after one warm-up pass (JIT, pools, gRPC channels). */
export async function countedRounds(o: CountedRoundsOptions): Promise<CountedRounds> {
  const out: CountedRounds = new Map(
    Object.keys(o.sides).map((name) => [name, { proxy: [], helper: [], latencies: [] }]),
  );
  for (const path of Object.values(o.sides)) await cpuPerRequest(o, path);
  for (let round = 0; round < o.rounds; round++) {
    for (const [name, path] of Object.entries(o.sides)) {
      const c = await cpuPerRequest(o, path);
      const s = out.get(name);
      s?.proxy.push(c.proxy);
      s?.helper.push(c.helper);
      s?.latencies.push(...(await latencies(o, path)));
    }
  }
  return out;
}

export interface CountedReport {
  /** The first line, before the rounds' shape and the load average. */
  title: string;
  /** The side the others are compared with. */
  baseline: string;
  /** How a ratio to the baseline is labelled (`ratio`, `vs local`). */
  versus: string;
  /** The helper's name in the CPU column (`OPA`, `service`). */
  helper: string;
  /** The width of the side's name column. */
  pad: number;
}

/** The report of `countedRounds`: per side the medians of CPU and latency, and their ratio and difference to the baseline. */
export function printCountedRounds(o: CountedRoundsOptions, got: CountedRounds, r: CountedReport): void {
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `${r.title}: medians of ${o.rounds} rounds (${o.requests} requests at ${o.concurrency} in flight for CPU, ${o.sequential} one at a time for latency); load average ${load}`,
  );
  const base = got.get(r.baseline);
  const baseCpu = median(base?.proxy ?? []);
  const baseLat = median(base?.latencies ?? []);
  const signed = (v: number, digits: number): string => `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`;
  for (const [name, s] of got) {
    const c = median(s.proxy);
    const h = median(s.helper);
    const l = median(s.latencies);
    console.log(
      `  ${name.padEnd(r.pad)} proxy CPU ${c.toFixed(1).padStart(7)} µs/request (${r.versus} ${(c / baseCpu).toFixed(2)}, ${signed(c - baseCpu, 1)} µs)   ${r.helper} CPU ${h.toFixed(1).padStart(6)} µs/check   latency p50 ${l.toFixed(3)} ms (${r.versus} ${(l / baseLat).toFixed(2)}, ${signed(l - baseLat, 3)} ms) p99 ${p99(s.latencies).toFixed(3)} ms`,
    );
  }
}

const loadOne = (): number => loadavg()[0] ?? 0;
