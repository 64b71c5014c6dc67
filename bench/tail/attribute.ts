// Lines up a tail run's slow calls (bench/tail/tail.ts) with what the traced processes recorded around them
// (bench/tail/trace.mjs): for each proxy, where a slow call spent its time (before the worker saw it, inside the
// worker, after the worker answered) and what it coincided with, against the same shares over all its calls.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Call {
  id: string;
  path: string;
  /** Scheduled send, send, answer read: CLOCK_MONOTONIC in ms, as the trace's. */
  due: number;
  sent: number;
  done: number;
}

interface Ev {
  k: string;
  t: number;
  d?: number;
  e?: number;
  id?: string;
  c?: string;
  g?: number;
  cpu?: number;
  p?: number;
  u0?: number;
  u2?: number;
  up?: number;
  pid: number;
  role: string;
}

function load(dir: string): Ev[] {
  const out: Ev[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    const lines = readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean);
    const head = JSON.parse(lines[0]!) as { pid: number; role: string };
    for (const l of lines.slice(1)) out.push({ ...(JSON.parse(l) as Ev), pid: head.pid, role: head.role });
  }
  return out;
}

const overlaps = (e: Ev, a: number, b: number): boolean => e.t < b && e.t + (e.d ?? 0) > a;
const pct = (n: number, of: number): string => `${of ? ((100 * n) / of).toFixed(0) : '-'} %`;
const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Prints, per proxied path, the attribution of its calls at or above its p99. */
export function attribute(traceDir: string, workload: string, calls: Call[]): void {
  const base = path.join(traceDir, workload);
  const upstream = load(path.join(base, `${workload}-upstream`));
  for (const name of readdirSync(base).filter((d) => d.endsWith('-proxy'))) {
    const pathName = name.replace(/-proxy$/, '');
    const evs = load(path.join(base, name));
    const reqs = new Map(evs.filter((e) => e.k === 'req' && e.id).map((e) => [e.id!, e]));
    const mine = calls.filter((c) => c.path === pathName && reqs.has(c.id));
    if (!mine.length) continue;
    const lat = mine.map((c) => c.done - c.due).sort((a, b) => a - b);
    const cut = lat[Math.floor(lat.length * 0.99)]!;
    const byWorker = new Map<number, number>();
    for (const c of mine) byWorker.set(reqs.get(c.id)!.pid, (byWorker.get(reqs.get(c.id)!.pid) ?? 0) + 1);
    const serving = new Set([...reqs.values()].map((r) => r.pid));
    const gcs = evs.filter((e) => e.k === 'gc' && serving.has(e.pid));
    const firsts = new Set<string>();
    const seen = new Set<string>();
    for (const r of [...reqs.values()].sort((a, b) => a.t - b.t))
      if (!seen.has(r.c!)) {
        seen.add(r.c!);
        firsts.add(r.id!);
      }
    const during = (c: Call, pred: (e: Ev) => boolean): boolean =>
      evs.some((e) => e.pid === reqs.get(c.id)!.pid && pred(e) && overlaps(e, c.due, c.done));
    const facts = {
      'the generator sent it > 1 ms late': (c: Call) => c.sent - c.due > 1,
      'first request on a new inbound connection': (c: Call) => firsts.has(c.id),
      'its worker opened an upstream connection for it': (c: Call) =>
        evs.some((e) => {
          const r = reqs.get(c.id)!;
          return e.k === 'up-conn' && e.p === r.up && e.pid === r.pid && e.t >= r.t && e.t <= r.u2!;
        }),
      'a GC pause in its worker': (c: Call) => during(c, (e) => e.k === 'gc'),
      'its worker busy > 2 ms at a stretch (own work)': (c: Call) =>
        during(c, (e) => e.k === 'lag' && e.cpu! > e.d! / 2),
      'its worker waiting > 2 ms for a core': (c: Call) => during(c, (e) => e.k === 'lag' && e.cpu! <= e.d! / 2),
      'a GC or stall in the primary': (c: Call) =>
        evs.some((g) => !serving.has(g.pid) && (g.k === 'gc' || g.k === 'lag') && overlaps(g, c.due, c.done)),
    };
    const slow = mine.filter((c) => c.done - c.due >= cut);
    console.log(
      `  ${pathName}: ${mine.length} calls traced, p99 ${cut.toFixed(2)} ms; calls per worker ${[...byWorker.values()].join(' / ')}; ` +
        `GC ${gcs.length} pauses in the serving processes, ${med(gcs.map((g) => g.d!)).toFixed(2)} ms median`,
    );
    segments(slow, mine, reqs, upstream);
    if (process.env.TAIL_TIMELINES)
      timelines(
        slow.sort((a, b) => b.done - b.due - (a.done - a.due)).slice(0, Number(process.env.TAIL_TIMELINES)),
        [...evs, ...upstream],
        reqs,
      );
    for (const [what, f] of Object.entries(facts))
      console.log(
        `    ${what.padEnd(46)} slow ${pct(slow.filter(f).length, slow.length).padStart(5)}   all ${pct(mine.filter(f).length, mine.length).padStart(5)}`,
      );
  }
}

/** Every traced event around each of these calls, in ms from its scheduled send. */
function timelines(slow: Call[], evs: Ev[], reqs: Map<string, Ev>): void {
  for (const c of slow) {
    const r = reqs.get(c.id)!;
    const at = (t: number): string => (t - c.due).toFixed(2);
    console.log(
      `    call ${c.id}: sent ${at(c.sent)}, worker ${r.pid} ${at(r.t)}–${at(r.e!)} (connection ${r.c}), answered ${at(c.done)}`,
    );
    for (const e of evs.filter((x) => x.t + (x.d ?? 0) >= c.due - 2 && x.t <= c.done && x.k !== 'req'))
      console.log(
        `      ${at(e.t).padStart(8)} ${e.role.padEnd(10)} ${e.pid} ${e.k}${e.d !== undefined ? ` ${e.d.toFixed(2)} ms` : ''}` +
          `${e.cpu !== undefined ? ` (cpu ${e.cpu.toFixed(2)})` : ''}${e.p ? ` port ${e.p}` : ''}`,
      );
  }
}

/**
 * Where the slow calls' time went, segment by segment (median over all calls → median over the slow ones), and
 * each segment's share of the slow calls' excess over the all-calls medians.
 */
function segments(slow: Call[], all: Call[], reqs: Map<string, Ev>, upstream: Ev[]): void {
  const upReqs = upstream.filter((e) => e.k === 'req');
  const upOwn = (r: Ev): number => {
    const u = upReqs.find((x) => x.c!.endsWith(`:${r.up}`) && x.t >= r.u0! - 0.01 && x.t <= r.u2!);
    return u ? u.e! - u.t : NaN;
  };
  const parts: Array<[string, (c: Call, r: Ev) => number]> = [
    ['generator late', (c) => c.sent - c.due],
    ['to the worker', (c, r) => r.t - c.sent],
    ['worker, before the upstream', (c, r) => r.u0! - r.t],
    ['upstream round trip, but the upstream', (c, r) => r.u2! - r.u0! - upOwn(r)],
    ['the upstream itself', (c, r) => upOwn(r)],
    ['worker, after the upstream', (c, r) => r.e! - r.u2!],
    ['back to the client', (c, r) => c.done - r.e!],
  ];
  const ok = (c: Call): boolean => reqs.get(c.id)!.u2 !== undefined;
  const medOf = (xs: Call[], f: (c: Call, r: Ev) => number): number =>
    med(
      xs
        .filter(ok)
        .map((c) => f(c, reqs.get(c.id)!))
        .filter((x) => !Number.isNaN(x)),
    );
  const excess = parts.map(([, f]) => {
    const m = medOf(all, f);
    return slow.filter(ok).reduce((t, c) => t + Math.max(0, f(c, reqs.get(c.id)!) - m || 0), 0);
  });
  const total = excess.reduce((a, b) => a + b, 0);
  console.log(`    segments, median all → slow ms (share of the slow calls' excess):`);
  for (const [i, [name, f]] of parts.entries())
    console.log(
      `      ${name.padEnd(40)} ${medOf(all, f).toFixed(2).padStart(7)} → ${medOf(slow, f).toFixed(2).padStart(7)}  (${pct(excess[i]!, total)})`,
    );
}
