// `gw proxy --workers 1` vs `--workers 2`, side by side in one run: closed-loop tools/call throughput
// (fixed concurrency, a keep-alive connection per caller) and CPU per call of each proxy's whole
// process tree (primary + workers, from /proc). Both proxies are the built CLI (`make build`, run through bin/gw.js) serving
// one streamable-HTTP upstream; slices alternate so background load hits both alike.
// Run: node_modules/.bin/tsc -p tsconfig.build.json && node_modules/.bin/tsx bench/proxy/workers.ts
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { initializeBody } from '../mcp-initialize.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const seconds = Number(process.env.BENCH_SECONDS ?? 12);
const slices = Number(process.env.BENCH_SLICES ?? 6);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const children: ChildProcess[] = [];
const agent = new Agent({ connections: 512, keepAliveTimeout: 30_000 });

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function startUpstream(): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'upstream.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  for await (const line of createInterface({ input: proc.stdout! })) if (line.startsWith('http')) return line.trim();
  throw new Error('upstream did not start');
}

async function startProxy(upstream: string, workers: number): Promise<{ proc: ChildProcess; url: string }> {
  const [port, ready, metrics] = [await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-bench-workers-'));
  const file = path.join(dir, 'gw.yaml');
  writeFileSync(
    file,
    `mcp:\n  port: ${port}\n  host: 127.0.0.1\n  targets:\n    - name: bench\n      streamableHttp: { url: ${JSON.stringify(upstream)} }\n`,
  );
  const proc = spawn(
    process.execPath,
    [
      path.join(root, 'bin/gw.js'),
      'proxy',
      '-f',
      file,
      '--workers',
      String(workers),
      '--log-level',
      'warn',
      '--ready-address',
      `127.0.0.1:${ready}`,
      '--metrics-address',
      `127.0.0.1:${metrics}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, SESSION_KEY: '' } },
  );
  children.push(proc);
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    const ok = await fetch(`http://127.0.0.1:${ready}/healthz/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { proc, url: `http://127.0.0.1:${port}/mcp` };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`proxy --workers ${workers} did not become ready`);
}

/** CPU seconds of a process and its children (a cluster primary and its workers). */
function treeCpu(pid: number): number {
  let total = 0;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  total += (Number(stat[11]) + Number(stat[12])) / 100;
  const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  for (const k of kids ? kids.split(' ') : []) total += treeCpu(Number(k));
  return total;
}

async function post(
  url: string,
  body: string,
  session?: string,
): Promise<{ status: number; sid?: string; text: string }> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(session ? { 'mcp-session-id': session } : {}),
    },
  });
  const sid = res.headers['mcp-session-id'];
  return { status: res.statusCode, text: await res.body.text(), ...(typeof sid === 'string' ? { sid } : {}) };
}

async function openSession(url: string): Promise<string> {
  const init = await post(url, initializeBody());
  if (init.status !== 200 || !init.sid) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), init.sid);
  return init.sid;
}

let nextId = 1;
async function closedLoop(url: string, session: string, duration: number): Promise<number> {
  let n = 0;
  const end = Date.now() + duration * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const res = await post(
          url,
          `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`,
          session,
        );
        if (res.status !== 200 || !res.text.includes('bench:x')) throw new Error(`call failed: ${res.status}`);
        n++;
      }
    }),
  );
  return n;
}

async function main(): Promise<void> {
  const upstream = await startUpstream();
  const paths = [
    { name: '--workers 1', ...(await startProxy(upstream, 1)) },
    { name: '--workers 2', ...(await startProxy(upstream, 2)) },
  ];
  const sessions = await Promise.all(paths.map((p) => openSession(p.url)));
  for (const [i, p] of paths.entries()) await closedLoop(p.url, sessions[i]!, 1); // warm-up
  const calls = [0, 0];
  const cpu = paths.map((p) => treeCpu(p.proc.pid!));
  const load0 = loadavg()[0]!.toFixed(2);
  for (let s = 0; s < slices; s++)
    for (const [i, p] of paths.entries()) calls[i]! += await closedLoop(p.url, sessions[i]!, seconds / slices);
  const used = paths.map((p, i) => treeCpu(p.proc.pid!) - cpu[i]!);
  console.log(`tools/call closed loop, ${concurrency} concurrent, ${seconds}s per proxy, load average ${load0}`);
  for (const [i, p] of paths.entries())
    console.log(
      `  ${p.name}  ${(calls[i]! / seconds).toFixed(0).padStart(6)} req/s  cpu ${((used[i]! * 1000) / calls[i]!).toFixed(3)} ms/call`,
    );
  console.log(`  ratio  --workers 2 / --workers 1 = ${(calls[1]! / calls[0]!).toFixed(2)}x throughput`);
}

try {
  await main();
} finally {
  for (const c of children) c.kill();
  await agent.close();
}
