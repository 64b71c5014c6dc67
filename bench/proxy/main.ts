// tools/call through the proxy vs straight to the upstream, side by side: closed-loop throughput
// (fixed concurrency) and open-loop latency at fixed rates. The load generator is this process; the
// upstream and the proxy run in their own processes. Loopback only, about a minute in total.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { median, percentile, type Sample, summarize } from './stats.js';
import { initializeBody } from '../mcp-initialize.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
// Paths alternate in short slices so background load hits them alike.
const slices = Number(process.env.BENCH_SLICES ?? 6);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const rate = Number(process.env.BENCH_RATE ?? 1000);
// A second fixed rate the machine can carry (a fraction of the proxied closed-loop throughput), so the
// added latency of the proxy itself shows even when the target rate only measures queueing.
const headroom = Number(process.env.BENCH_HEADROOM ?? 0.5);
// Another checkout (its root) to run as a third path, "baseline": A/B in one run, interleaved.
const baseline = process.env.BENCH_BASELINE;
const skipClosed = process.env.BENCH_CLOSED === '0';
// 2025-11-25 sessions get a priming event (an SSE event id) before each answer: one more write per call.
const protocol = process.env.BENCH_PROTOCOL ?? '2025-06-18';
// BENCH_PROTOCOL=2026-07-28: every call stands alone (no session), the envelope in `_meta`, the routing headers set.
const isStateless = (version: string): boolean => version >= '2026-07-28';
const envelope = (version: string): string =>
  `"_meta":{"io.modelcontextprotocol/protocolVersion":"${version}","io.modelcontextprotocol/clientCapabilities":{}}`;
// BENCH_BASELINE_PROTOCOL: the baseline path speaks this version instead, e.g. a stateful 2025-06-18 session
// through a second proxy of the same checkout beside the stateless 2026 path, measured in the same run.
const baselineProtocol = process.env.BENCH_BASELINE_PROTOCOL ?? protocol;
// cheap (default): a hand-written JSON-RPC server that costs next to nothing, so the ratio measures the
// proxy; sdk: the MCP SDK's server (the fixture), itself slower per call than the proxy.
const upstreamKind = process.env.BENCH_UPSTREAM ?? 'cheap';
const children: ChildProcess[] = [];

interface Child {
  proc: ChildProcess;
  url: string;
  lines: AsyncGenerator<string>;
}

async function startChild(file: string, args: string[] = []): Promise<Child> {
  const profDir = process.env.BENCH_PROF_DIR ?? '/tmp/gwprof';
  // BENCH_PROF=proxy.ts profiles this build's proxy; BENCH_PROF=baseline the baseline's (same load, same upstream).
  const wanted = process.env.BENCH_PROF;
  const profiled =
    (wanted === file && args.length <= 1) || (wanted === 'baseline' && file === 'proxy.ts' && args.length === 2);
  const prof = profiled ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  // Extra node flags for the proxies, e.g. BENCH_PROXY_NODE='--trace-gc' (not the baseline's).
  if (file === 'proxy.ts' && args.length === 1 && process.env.BENCH_PROXY_NODE)
    prof.push(...process.env.BENCH_PROXY_NODE.split(' '));
  const proc = spawn(process.execPath, [...prof, '--import', 'tsx', path.join(here, file), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  const lines = protocolLines(createInterface({ input: proc.stdout! }));
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code) => reject(new Error(`${file} exited with ${code}`))),
  );
  const first = await Promise.race([lines.next(), exited]);
  return { proc, url: String(first.value).trim(), lines };
}

/** The child's answers (URL, stats JSON); anything else it prints (--trace-gc) goes to stderr. */
async function* protocolLines(input: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const line of input) {
    if (line.startsWith('http') || line.startsWith('{')) yield line;
    else process.stderr.write(`${line}\n`);
  }
}

interface ProxyStats {
  loopP99: number;
  loopMax: number;
  gcCount: number;
  gcMs: number;
  gcMax: number;
}

async function proxyStats(c: Child): Promise<ProxyStats> {
  c.proc.stdin!.write('stats\n');
  return JSON.parse(String((await c.lines.next()).value)) as ProxyStats;
}

const agent = new Agent({ connections: 512, pipelining: 1, keepAliveTimeout: 30_000 });

async function post(
  url: string,
  body: string,
  version: string,
  session?: string,
): Promise<{ status: number; session: string | undefined; text: string }> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      ...(session ? { 'mcp-session-id': session } : {}),
      ...(isStateless(version) ? { 'mcp-method': 'tools/call', 'mcp-name': 'echo' } : {}),
    },
  });
  const text = await res.body.text();
  const sid = res.headers['mcp-session-id'];
  return { status: res.statusCode, session: typeof sid === 'string' ? sid : undefined, text };
}

interface Path {
  name: string;
  url: string;
  session: string;
  protocol: string;
}

async function openSession(name: string, url: string, version = protocol): Promise<Path> {
  if (isStateless(version)) return { name, url, session: '', protocol: version };
  const init = await post(url, initializeBody(version), version);
  if (init.status !== 200 || !init.session) throw new Error(`initialize failed at ${url}: ${init.status} ${init.text}`);
  await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), version, init.session);
  return { name, url, session: init.session, protocol: version };
}

let nextId = 1;
/** One tools/call; latency counts from `since` (the scheduled send time in an open loop). */
async function call(p: Path, since = process.hrtime.bigint()): Promise<number> {
  const res = await post(
    p.url,
    `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}${isStateless(p.protocol) ? `,${envelope(p.protocol)}` : ''}}}`,
    p.protocol,
    p.session || undefined,
  );
  if (res.status !== 200 || !res.text.includes('bench:x'))
    throw new Error(`tools/call failed: ${res.status} ${res.text.slice(0, 200)}`);
  return Number(process.hrtime.bigint() - since) / 1e6;
}

/** CPU seconds (user + system) a child has used so far, from /proc: robust to other load on the box. */
function cpuSeconds(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Read and write system calls a child has made so far (/proc/<pid>/io): loopback sends cost the most CPU. */
function syscalls(child: ChildProcess): { r: number; w: number } {
  const io = readFileSync(`/proc/${child.pid}/io`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`${name}: (\\d+)`).exec(io)?.[1] ?? 0);
  return { r: field('syscr'), w: field('syscw') };
}

async function closedLoop(p: Path, duration: number): Promise<Sample> {
  const latencies: number[] = [];
  const end = Date.now() + duration * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) latencies.push(await call(p));
    }),
  );
  return { latencies, elapsed: (Date.now() - started) / 1000, dropped: 0 };
}

/**
 * Sends on a fixed schedule whatever the answers do (open loop), and measures each call from its
 * scheduled send time, so a stall delays every call behind it in the figures too (no coordinated
 * omission). Past a quarter second of backlog calls are counted as not sent, which bounds the time.
 */
async function openLoop(r: number, p: Path, duration: number): Promise<Sample> {
  const latencies: number[] = [];
  let dropped = 0;
  const total = Math.round(r * duration);
  const started = process.hrtime.bigint();
  const pending: Array<Promise<void>> = [];
  let inflight = 0;
  for (let i = 0; i < total; i++) {
    const due = started + BigInt(Math.round((i * 1e9) / r));
    const now = process.hrtime.bigint();
    if (due > now) await new Promise((resolve) => setTimeout(resolve, Number(due - now) / 1e6));
    if (inflight >= Math.max(16, r / 4)) {
      dropped++;
      continue;
    }
    inflight++;
    pending.push(
      call(p, due).then((ms) => {
        latencies.push(ms);
        inflight--;
      }),
    );
  }
  await Promise.all(pending);
  return { latencies, elapsed: Number(process.hrtime.bigint() - started) / 1e9, dropped };
}

/** Runs every path once per slice, in turn; returns each path's slices. */
async function alternate(
  paths: Path[],
  run: (p: Path, duration: number) => Promise<Sample>,
  onSlice?: (p: Path) => Promise<void>,
  beforeSlice?: (p: Path) => Promise<void>,
): Promise<Sample[][]> {
  const out = paths.map(() => [] as Sample[]);
  for (let i = 0; i < slices; i++) {
    for (const [k, p] of paths.entries()) {
      await beforeSlice?.(p);
      out[k]!.push(await run(p, seconds / slices));
      await onSlice?.(p);
    }
  }
  return out;
}

const ms = (n: number): string => n.toFixed(2).padStart(6);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const up = await startChild(upstreamKind === 'sdk' ? 'upstream.ts' : 'cheap-upstream.ts');
  const proxy = await startChild('proxy.ts', [up.url]);
  const base = baseline ? await startChild('proxy.ts', [up.url, baseline]) : undefined;
  const paths = [await openSession('direct', up.url), await openSession('proxied', proxy.url)];
  if (base) paths.push(await openSession('baseline', base.url, baselineProtocol));
  const proxies = new Map([['proxied', proxy], ...(base ? [['baseline', base] as const] : [])]);
  // Warm-up: JIT, connection pools, then a second at the target rate on every path.
  for (let i = 0; i < 200; i++) await Promise.all(paths.map((p) => call(p)));
  for (const p of paths) await openLoop(rate, p, 1);
  for (const c of proxies.values()) await proxyStats(c);

  console.log(
    `load average before: ${load()}; protocol ${protocol}; upstream ${upstreamKind}${baseline ? `; baseline: ${baseline} (${baselineProtocol})` : ''}`,
  );
  if (!skipClosed) {
    console.log(`tools/call, ${concurrency} concurrent, ${seconds}s per path`);
    const cpu0 = {
      up: cpuSeconds(up.proc),
      proxy: cpuSeconds(proxy.proc),
      base: base ? cpuSeconds(base.proc) : 0,
      client: process.cpuUsage(),
      io: syscalls(proxy.proc),
      baseIo: base ? syscalls(base.proc) : undefined,
    };
    const res = (await alternate(paths, closedLoop)).map(summarize);
    const n = res.reduce((t, r) => t + r.n, 0);
    for (const [k, r] of res.entries())
      console.log(
        `  ${paths[k]!.name.padEnd(8)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  (n=${r.n})`,
      );
    console.log(`  ratio    ${((res[1]!.rps / res[0]!.rps) * 100).toFixed(1)}% of direct throughput (target >= 50%)`);
    const client = process.cpuUsage(cpu0.client);
    console.log(
      `  cpu      upstream ${(((cpuSeconds(up.proc) - cpu0.up) * 1000) / n).toFixed(3)} ms/call, proxy ${(((cpuSeconds(proxy.proc) - cpu0.proxy) * 1000) / res[1]!.n).toFixed(3)} ms/call, load generator ${((client.user + client.system) / 1000 / n).toFixed(3)} ms/call${base && res[2] ? `, baseline ${(((cpuSeconds(base.proc) - cpu0.base) * 1000) / res[2].n).toFixed(3)} ms/call` : ''}`,
    );
    const perCall = (c: Child, io0: { r: number; w: number }, n: number): string => {
      const io = syscalls(c.proc);
      return `${((io.r - io0.r) / n).toFixed(2)} reads, ${((io.w - io0.w) / n).toFixed(2)} writes per call`;
    };
    const baseIo = base && cpu0.baseIo && res[2] ? `; baseline ${perCall(base, cpu0.baseIo, res[2].n)}` : '';
    console.log(`  syscalls proxy ${perCall(proxy, cpu0.io, res[1]!.n)}${baseIo}`);
    const carried = Math.floor(res[1]!.rps * headroom);
    if (headroom > 0 && carried > 0 && !rates.includes(carried)) rates.push(carried);
  }
  for (const r of rates) {
    console.log(
      `tools/call at a fixed ${r} req/s, ${seconds}s per path, latency from the scheduled send time (load ${load()})`,
    );
    const stats = new Map<string, ProxyStats[]>();
    const cpu0 = { up: cpuSeconds(up.proc), proxy: cpuSeconds(proxy.proc), base: base ? cpuSeconds(base.proc) : 0 };
    const raw = await alternate(
      paths,
      (p, d) => openLoop(r, p, d),
      async (p) => {
        const c = proxies.get(p.name);
        if (c) stats.set(p.name, [...(stats.get(p.name) ?? []), await proxyStats(c)]);
      },
      // Reset a proxy's counters as its own slice starts: the GC it does while idle through the other
      // paths' slices (V8's memory reducer, once the allocation rate drops) is not a pause any call waits on.
      async (p) => {
        const c = proxies.get(p.name);
        if (c) await proxyStats(c);
      },
    );
    const res = raw.map(summarize);
    for (const [k, x] of res.entries()) {
      const name = paths[k]!.name;
      const s = stats.get(name);
      // GC pauses as a share of the time this path was driven (its slices; the proxy idles in the others').
      const gcMs = s ? s.reduce((t, x) => t + x.gcMs, 0) : 0;
      const own = s
        ? `  own loop delay p99 ${ms(median(s.map((x) => x.loopP99)))} max ${ms(Math.max(...s.map((x) => x.loopMax)))} ms, GC ${s.reduce((t, x) => t + x.gcCount, 0)} pauses ${gcMs.toFixed(1)} ms (max ${Math.max(...s.map((x) => x.gcMax)).toFixed(2)}) = ${((gcMs / (x.elapsed * 1000)) * 100).toFixed(2)}% of wall time (target <= 1%)`
        : '';
      console.log(
        `  ${name.padEnd(8)} ${x.rps.toFixed(0).padStart(5)} req/s  p50 ${ms(x.p50)}  p99 ${ms(x.p99)}  p99.9 ${ms(x.p999)} ms  (n=${x.n}${x.dropped ? `, ${x.dropped} not sent` : ''})${own}`,
      );
    }
    for (const k of paths.keys()) {
      if (k === 0) continue;
      // Per-slice added p99, median over slices: one slice hit by a burst of outside load does not decide it.
      const perSlice = raw[k]!.map(
        (s, i) =>
          percentile(
            [...s.latencies].sort((a, b) => a - b),
            99,
          ) -
          percentile(
            [...raw[0]![i]!.latencies].sort((a, b) => a - b),
            99,
          ),
      );
      console.log(
        `  added    ${paths[k]!.name}: p50 ${(res[k]!.p50 - res[0]!.p50).toFixed(2)} ms, p99 ${(res[k]!.p99 - res[0]!.p99).toFixed(2)} ms (median over slices ${median(perSlice).toFixed(2)} ms; target p99 <= 1 ms at half the closed-loop rate)`,
      );
    }
    const baseCpu =
      base && res[2]
        ? `, baseline ${(((cpuSeconds(base.proc) - cpu0.base) * 1000) / res[2].n).toFixed(3)} ms/call`
        : '';
    console.log(
      `  cpu      upstream ${(((cpuSeconds(up.proc) - cpu0.up) * 1000) / res.reduce((t, x) => t + x.n, 0)).toFixed(3)} ms/call, proxy ${(((cpuSeconds(proxy.proc) - cpu0.proxy) * 1000) / res[1]!.n).toFixed(3)} ms/call${baseCpu}`,
    );
  }
  console.log(`load average after: ${load()}`);
}

const rates = (process.env.BENCH_RATES ?? String(rate))
  .split(',')
  .map(Number)
  .filter((r) => r > 0);
try {
  await main();
} finally {
  for (const c of children) c.kill();
  await agent.close();
}
