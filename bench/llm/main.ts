// Chat completions straight to a fake OpenAI upstream vs through the proxy, side by side: closed-loop
// throughput (fixed concurrency) on three paths in alternating slices — direct, proxied (ai backend, no
// guards), guarded (regex prompt guards on request and response) and streamed (proxied, `stream: true`:
// BENCH_CHUNKS SSE chunks, default 100). Reports each path's rate and latency, the ratios to direct, the
// proxy's CPU per call, and per streamed event: (CPU per streamed call − CPU per proxied call) / events.
// BENCH_BASELINE=<checkout with dist/ built> serves the same routes from that build in a second proxy
// process, interleaved (A/B in one run); BENCH_NODE_FLAGS: extra Node/V8 flags for this checkout's proxy only
// (with BENCH_BASELINE=. the cost of a flag, e.g. --max-semi-space-size=4, in one run); BENCH_PROF=proxy.ts profiles this checkout's proxy (/tmp/gwllmprof).
// Loopback only, about half a minute (a minute with a baseline).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { summarize, type Sample } from '../proxy/stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const slices = Number(process.env.BENCH_SLICES ?? 6);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const chunks = Number(process.env.BENCH_CHUNKS ?? 100);
const baseline = process.env.BENCH_BASELINE;
// BENCH_FLOOR=1 adds two paths through floor.ts (bare node:http + undici, no proxy logic), plain and streamed:
// what Node itself costs per call and per streamed event.
const floor = process.env.BENCH_FLOOR === '1';
// Only these paths (comma-separated names), e.g. BENCH_ONLY=streamed to profile one path alone.
const only = process.env.BENCH_ONLY?.split(',');
const children: ChildProcess[] = [];

async function startChild(
  file: string,
  args: string[] = [],
  flags: string[] = [],
): Promise<{ proc: ChildProcess; url: string }> {
  const prof =
    process.env.BENCH_PROF === file && args.length === 1 ? ['--cpu-prof', '--cpu-prof-dir=/tmp/gwllmprof'] : [];
  const proc = spawn(process.execPath, [...prof, ...flags, '--import', 'tsx', path.join(here, file), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code) => reject(new Error(`${file} exited with ${code}`))),
  );
  const first = await Promise.race([lines.next(), exited]);
  return { proc, url: String(first.value).trim() };
}

/** User and system CPU seconds of a child so far. */
function cpuSeconds(child: ChildProcess): [number, number] {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return [Number(fields[11]) / 100, Number(fields[12]) / 100];
}

const agent = new Agent({ connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
// A prompt the request guards must scan (and mask one SSN in), about the size of a short chat turn.
const body = JSON.stringify({
  model: 'bench-model',
  messages: [
    { role: 'system', content: 'You are a terse assistant. Answer in one sentence. Never reveal personal data.' },
    { role: 'user', content: `My customer number is 123-45-6789. ${'What is the capital of France? '.repeat(8)}` },
  ],
});

const streamBody = JSON.stringify({ ...JSON.parse(body), stream: true, stream_options: { include_usage: true } });

async function call(url: string, stream = false): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    body: stream ? streamBody : body,
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200 || !text.includes('Paris') || (stream && !text.endsWith('data: [DONE]\n\n')))
    throw new Error(`chat call to ${url} failed: ${res.statusCode} ${text.slice(0, 200)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function closedLoop(url: string, duration: number, stream: boolean): Promise<Sample> {
  const latencies: number[] = [];
  const end = Date.now() + duration * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) latencies.push(await call(url, stream));
    }),
  );
  return { latencies, elapsed: (Date.now() - started) / 1000, dropped: 0 };
}

interface Path {
  name: string;
  url: string;
  stream: boolean;
  proxy?: ChildProcess;
}

function proxyPaths(tag: string, proc: ChildProcess, url: string): Path[] {
  return [
    { name: `${tag}proxied`, url: `${url}/plain/v1/chat/completions`, stream: false, proxy: proc },
    { name: `${tag}guarded`, url: `${url}/guarded/v1/chat/completions`, stream: false, proxy: proc },
    { name: `${tag}streamed`, url: `${url}/plain/v1/chat/completions`, stream: true, proxy: proc },
  ];
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const up = await startChild('upstream.ts', [String(chunks)]);
  const port = new URL(up.url).port;
  const proxy = await startChild('proxy.ts', [port], (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean));
  const paths: Path[] = [
    { name: 'direct', url: `${up.url}/v1/chat/completions`, stream: false },
    { name: 'streamed direct', url: `${up.url}/v1/chat/completions`, stream: true },
    ...proxyPaths('', proxy.proc, proxy.url),
  ];
  if (only) paths.splice(0, paths.length, ...paths.filter((p) => only.includes(p.name)));
  if (floor) {
    const f = await startChild('floor.ts', [port]);
    paths.push(
      { name: 'floor', url: `${f.url}/v1/chat/completions`, stream: false, proxy: f.proc },
      { name: 'floor streamed', url: `${f.url}/v1/chat/completions`, stream: true, proxy: f.proc },
    );
  }
  if (baseline) {
    const base = await startChild('proxy.ts', [port, path.resolve(baseline)]);
    paths.push(...proxyPaths('base ', base.proc, base.url));
  }
  for (let i = 0; i < 300; i++) await Promise.all(paths.map((p) => call(p.url, p.stream)));
  console.log(`load average before: ${load()}`);
  console.log(
    `chat completions, ${concurrency} concurrent, ${seconds}s per path in ${slices} alternating slices; streamed: ${chunks} chunks + usage + [DONE]`,
  );
  const samples = paths.map(() => [] as Sample[]);
  // The proxy's CPU on proxied paths, the upstream's on direct ones (what a bare node:http server costs).
  const cpu = paths.map(() => [0, 0]);
  for (let s = 0; s < slices; s++) {
    for (const [k, p] of paths.entries()) {
      const proc = p.proxy ?? up.proc;
      const before = cpuSeconds(proc);
      samples[k]!.push(await closedLoop(p.url, seconds / slices, p.stream));
      const after = cpuSeconds(proc);
      cpu[k]![0]! += after[0] - before[0];
      cpu[k]![1]! += after[1] - before[1];
    }
  }
  if (only)
    for (const [k, p] of paths.entries())
      console.log(
        `  ${p.name}: cpu ${(((cpu[k]![0]! + cpu[k]![1]!) * 1000) / summarize(samples[k]!).n).toFixed(3)} ms/call`,
      );
  else report(paths, samples.map(summarize), cpu);
  console.log(`load average after: ${load()}`);
}

function report(paths: Path[], res: ReturnType<typeof summarize>[], cpu: number[][]): void {
  const ms = (n: number): string => n.toFixed(2).padStart(6);
  const perCall = (name: string): number => {
    const k = paths.findIndex((p) => p.name === name);
    return ((cpu[k]![0]! + cpu[k]![1]!) * 1000) / res[k]!.n;
  };
  const rps = (name: string): number => res[paths.findIndex((p) => p.name === name)]!.rps;
  for (const [k, r] of res.entries()) {
    const sys = (cpu[k]![1]! / (cpu[k]![0]! + cpu[k]![1]!)) * 100;
    const who = paths[k]!.name.startsWith('floor') ? 'floor' : paths[k]!.proxy ? 'proxy' : 'upstream';
    const own = `  ${who} cpu ${perCall(paths[k]!.name).toFixed(3)} ms/call (${sys.toFixed(0)}% sys)`;
    console.log(
      `  ${paths[k]!.name.padEnd(15)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  (n=${r.n})${own}`,
    );
  }
  const events = chunks + 2;
  for (const tag of baseline ? ['', 'base '] : ['']) {
    const perEvent = ((perCall(`${tag}streamed`) - perCall(`${tag}proxied`)) * 1000) / events;
    console.log(
      `  ${(tag || 'this ').padEnd(5)} proxied ${((rps(`${tag}proxied`) / rps('direct')) * 100).toFixed(1)}% of direct; guarded ${((rps(`${tag}guarded`) / rps(`${tag}proxied`)) * 100).toFixed(1)}% of proxied; streamed ${((rps(`${tag}streamed`) / rps('streamed direct')) * 100).toFixed(1)}% of direct; proxy cpu per streamed event ${perEvent.toFixed(2)} us`,
    );
  }
  if (floor)
    console.log(
      `  floor proxied ${((rps('floor') / rps('direct')) * 100).toFixed(1)}% of direct; proxy cpu per call / floor's ${(perCall('proxied') / perCall('floor')).toFixed(2)}; floor cpu per streamed event ${(((perCall('floor streamed') - perCall('floor')) * 1000) / events).toFixed(2)} us, the proxy's / the floor's ${((perCall('streamed') - perCall('proxied')) / (perCall('floor streamed') - perCall('floor'))).toFixed(2)}`,
    );
  if (baseline)
    for (const n of ['proxied', 'guarded', 'streamed'])
      console.log(`  cpu per call ${n.padEnd(8)} this / base ${(perCall(n) / perCall(`base ${n}`)).toFixed(2)}`);
}

try {
  await main();
} finally {
  for (const c of children) c.kill();
  await agent.close();
}
