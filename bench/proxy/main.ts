// tools/call through the proxy vs straight to the upstream, side by side: closed-loop throughput
// (fixed concurrency) and open-loop latency at a fixed 1,000 req/s. Loopback only, < 60 s total.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Agent, request } from 'undici';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
// Direct and proxied runs alternate in short slices so background load hits both alike.
const slices = Number(process.env.BENCH_SLICES ?? 6);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const rate = Number(process.env.BENCH_RATE ?? 1000);
const children: ChildProcess[] = [];

function startChild(file: string, args: string[] = []): Promise<string> {
  const child = spawn(process.execPath, [...(process.env.BENCH_PROF === file ? ['--cpu-prof', '--cpu-prof-dir=/tmp/gwprof'] : []), '--import', 'tsx', path.join(here, file), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

const agent = new Agent({ connections: concurrency * 2, pipelining: 1, keepAliveTimeout: 30_000 });

async function post(url: string, body: unknown, session?: string): Promise<{ status: number; session: string | undefined; text: string }> {
  const res = await request(url, {
    method: 'POST', dispatcher: agent, body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(session ? { 'mcp-session-id': session } : {}) },
  });
  const text = await res.body.text();
  const sid = res.headers['mcp-session-id'];
  return { status: res.statusCode, session: typeof sid === 'string' ? sid : undefined, text };
}

async function openSession(url: string): Promise<string> {
  const init = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  if (init.status !== 200 || !init.session) throw new Error(`initialize failed at ${url}: ${init.status} ${init.text}`);
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, init.session);
  return init.session;
}

let nextId = 1;
async function call(url: string, session: string): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await post(url, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, session);
  if (res.status !== 200 || !res.text.includes('bench:x')) throw new Error(`tools/call failed: ${res.status} ${res.text.slice(0, 200)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

interface Result { rps: number; p50: number; p99: number; n: number }

interface Sample { latencies: number[]; elapsed: number }

/** CPU seconds (user + system) a child has used so far, from /proc: robust to other load on the box. */
function cpuSeconds(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function closedLoop(url: string, session: string, duration: number): Promise<Sample> {
  const latencies: number[] = [];
  const end = Date.now() + duration * 1000;
  const started = Date.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) latencies.push(await call(url, session));
  }));
  return { latencies, elapsed: (Date.now() - started) / 1000 };
}

function summarize(samples: Sample[]): Result {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const elapsed = samples.reduce((t, s) => t + s.elapsed, 0);
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length };
}

async function alternate(run: (url: string, session: string, duration: number) => Promise<Sample>, a: [string, string], b: [string, string]): Promise<[Result, Result]> {
  const da: Sample[] = [];
  const db: Sample[] = [];
  for (let i = 0; i < slices; i++) {
    da.push(await run(a[0], a[1], seconds / slices));
    db.push(await run(b[0], b[1], seconds / slices));
  }
  return [summarize(da), summarize(db)];
}

async function openLoop(url: string, session: string, duration: number): Promise<Sample> {
  const latencies: number[] = [];
  const total = Math.round(rate * duration);
  const started = process.hrtime.bigint();
  const pending: Array<Promise<void>> = [];
  let inflight = 0;
  for (let i = 0; i < total; i++) {
    const due = started + BigInt(Math.round((i * 1e9) / rate));
    const now = process.hrtime.bigint();
    if (due > now) await new Promise((r) => setTimeout(r, Number(due - now) / 1e6));
    // A saturated target would queue without bound (and break the time budget); past a quarter
    // second of backlog, count drops instead.
    if (inflight >= Math.max(16, rate / 4)) { dropped++; continue; }
    inflight++;
    pending.push(call(url, session).then((ms) => { latencies.push(ms); inflight--; }));
  }
  await Promise.all(pending);
  return { latencies, elapsed: Number(process.hrtime.bigint() - started) / 1e9 };
}

let dropped = 0;

const fmt = (r: Result): string => `${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms  (n=${r.n})`;

async function main(): Promise<void> {
  const upstream = await startChild('upstream.ts');
  const proxy = await startChild('proxy.ts', [upstream]);
  const direct = await openSession(upstream);
  const proxied = await openSession(proxy);
  for (let i = 0; i < 100; i++) await Promise.all([call(upstream, direct), call(proxy, proxied)]); // warm-up (JIT, connections)

  console.log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`tools/call, ${concurrency} concurrent, ${seconds}s each`);
  const [upChild, proxyChild] = children as [ChildProcess, ChildProcess];
  const before = { up: cpuSeconds(upChild), proxy: cpuSeconds(proxyChild) };
  const [d, p] = await alternate(closedLoop, [upstream, direct], [proxy, proxied]);
  const upCpuMs = ((cpuSeconds(upChild) - before.up) * 1000) / (d.n + p.n);
  const proxyCpuMs = ((cpuSeconds(proxyChild) - before.proxy) * 1000) / p.n;
  console.log(`  direct   ${fmt(d)}`);
  console.log(`  proxied  ${fmt(p)}`);
  console.log(`  ratio    ${((p.rps / d.rps) * 100).toFixed(1)}% of direct throughput (target >= 50%)`);
  console.log(`  cpu      upstream ${upCpuMs.toFixed(3)} ms/call, proxy ${proxyCpuMs.toFixed(3)} ms/call`);

  console.log(`tools/call at a fixed ${rate} req/s, ${seconds}s each`);
  const [dr, pr] = await alternate(openLoop, [upstream, direct], [proxy, proxied]);
  if (dropped > 0) console.log(`  (${dropped} requests not sent: more than a quarter second of backlog; the machine could not sustain ${rate} req/s)`);
  console.log(`  direct   ${fmt(dr)}`);
  console.log(`  proxied  ${fmt(pr)}`);
  console.log(`  added    p50 ${(pr.p50 - dr.p50).toFixed(2)} ms, p99 ${(pr.p99 - dr.p99).toFixed(2)} ms (target p99 <= 1 ms)`);
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

try {
  await main();
} finally {
  for (const c of children) c.kill();
  await agent.close();
}
