// Chat completions straight to a fake OpenAI upstream vs through the proxy, side by side: closed-loop
// throughput (fixed concurrency) on three paths in alternating slices — direct, proxied (ai backend, no
// guards) and guarded (regex prompt guards on request and response). Reports each path's rate and
// latency, the ratios to direct, and the proxy's CPU per call. Loopback only, about half a minute.
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
const children: ChildProcess[] = [];

async function startChild(file: string, args: string[] = []): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(here, file), ...args], {
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

function cpuSeconds(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
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

async function call(url: string): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    body,
    headers: { 'content-type': 'application/json' },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200 || !text.includes('Paris'))
    throw new Error(`chat call to ${url} failed: ${res.statusCode} ${text.slice(0, 200)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function closedLoop(url: string, duration: number): Promise<Sample> {
  const latencies: number[] = [];
  const end = Date.now() + duration * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) latencies.push(await call(url));
    }),
  );
  return { latencies, elapsed: (Date.now() - started) / 1000, dropped: 0 };
}

async function main(): Promise<void> {
  const up = await startChild('upstream.ts');
  const proxy = await startChild('proxy.ts', [new URL(up.url).port]);
  const paths = [
    { name: 'direct', url: `${up.url}/v1/chat/completions` },
    { name: 'proxied', url: `${proxy.url}/plain/v1/chat/completions` },
    { name: 'guarded', url: `${proxy.url}/guarded/v1/chat/completions` },
  ];
  for (let i = 0; i < 300; i++) await Promise.all(paths.map((p) => call(p.url)));
  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `chat completions (non-streaming), ${concurrency} concurrent, ${seconds}s per path in ${slices} alternating slices`,
  );
  const samples = paths.map(() => [] as Sample[]);
  const cpu = paths.map(() => 0);
  for (let s = 0; s < slices; s++) {
    for (const [k, p] of paths.entries()) {
      const before = cpuSeconds(proxy.proc);
      samples[k]!.push(await closedLoop(p.url, seconds / slices));
      cpu[k]! += cpuSeconds(proxy.proc) - before;
    }
  }
  const res = samples.map(summarize);
  const ms = (n: number): string => n.toFixed(2).padStart(6);
  for (const [k, r] of res.entries()) {
    const own = k === 0 ? '' : `  proxy cpu ${((cpu[k]! * 1000) / r.n).toFixed(3)} ms/call`;
    console.log(
      `  ${paths[k]!.name.padEnd(8)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  (n=${r.n})${own}`,
    );
  }
  console.log(
    `  ratio    proxied ${((res[1]!.rps / res[0]!.rps) * 100).toFixed(1)}% of direct; guarded ${((res[2]!.rps / res[1]!.rps) * 100).toFixed(1)}% of proxied`,
  );
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

try {
  await main();
} finally {
  for (const c of children) c.kill();
  await agent.close();
}
