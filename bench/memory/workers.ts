// `gw proxy --workers N` as a user runs it, process by process: PSS (shared pages counted once, from
// /proc/PID/smaps_rollup) of the primary and of each worker, idle once ready and at its peak under the
// closed-loop LLM load (16 callers, chat completions to bench/llm/upstream.ts), with the routes of the
// anchor bench (Gw local mode: `gw controller --manifests` feeds the proxy over xDS). BENCH_WORKERS (default:
// the proxy's own default, one per CPU), BENCH_SECONDS of load (default 5). Needs dist/ (`make build`).
// BENCH_BASELINE: roots of other checkouts with bin/ and dist/ built (comma-separated), measured in the same
// run, one proxy after the other against the same controller and upstream. BENCH_MODULES=1: count each
// process's loaded modules (test/support/record-modules.mjs; its loader thread adds ~10 MiB to every process,
// so PSS is not comparable in that mode). BENCH_HEAP_SNAPSHOT=<dir>: each idle worker writes a V8 heap
// snapshot there (Node's --heapsnapshot-signal; nothing in the product). BENCH_NODE_FLAGS: extra Node flags
// for the proxy (workers inherit them), e.g. --max-semi-space-size=1.
// Goals (issue 42): primary ≤ 25 MiB, a worker ≤ 55 MiB idle and ≤ 70 MiB under load, all ≤ 120 MiB.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { firstLine, freePort, until200 } from '../lib/children.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const workers = process.env.BENCH_WORKERS;
const heapSnapshots = process.env.BENCH_HEAP_SNAPSHOT;
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const builds: Array<[string, string]> = [
  ['this build', root],
  ...(process.env.BENCH_BASELINE ?? '')
    .split(',')
    .filter(Boolean)
    .map((b): [string, string] => [path.basename(b), path.resolve(b)]),
];
const children: ChildProcess[] = [];
const work = mkdtempSync(path.join(tmpdir(), 'gw-bench-workers-'));
const agent = new Agent({ connections: 16 });
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'capital of France?' }] });

function start(args: string[], name: string, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const proc = spawn(process.execPath, args, { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(proc);
  proc.stderr!.on('data', (d: Buffer) => process.stderr.write(`[${name}] ${d}`));
  return proc;
}

const pssMiB = (pid: number): number =>
  Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;

function childPids(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** How many modules each process of a proxy loaded, keyed by pid (record-modules writes <pid>.txt). */
function moduleCounts(dir: string): Map<number, number> {
  return new Map(
    readdirSync(dir).map((f) => [
      Number(path.basename(f, '.txt')),
      new Set(readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean)).size,
    ]),
  );
}

interface Ports {
  port: number;
  xds: number;
}

/** One build's `gw proxy` against the running controller: its readings, printed; the proxy stopped after. */
async function measure([name, build]: [string, string], { port, xds }: Ports): Promise<void> {
  const [ready, proxyMetrics] = await Promise.all([freePort(), freePort()]);
  const modules = path.join(work, `modules-${builds.findIndex(([n]) => n === name)}`);
  mkdirSync(modules);
  const snapshotFlags = heapSnapshots ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapSnapshots}`] : [];
  const record = process.env.BENCH_MODULES ? ['--import', path.join(root, 'test/support/record-modules.mjs')] : [];
  const proxy = start(
    [
      ...[...nodeFlags, ...snapshotFlags, ...record, path.join(build, 'bin/gw.js'), 'proxy'],
      ...['--xds-address', `127.0.0.1:${xds}`, '--gateway', 'default/web', '--pod-name', 'bench'],
      ...['--listen-address', '127.0.0.1', '--ready-address', `127.0.0.1:${ready}`],
      ...['--metrics-address', `127.0.0.1:${proxyMetrics}`, ...(workers ? ['--workers', workers] : [])],
    ],
    `proxy ${name}`,
    { ...process.env, GW_RECORD_MODULES: modules },
  );
  try {
    await until200(`http://127.0.0.1:${ready}/healthz/ready`, proxy, agent);
    await readings(name, proxy.pid!, `http://127.0.0.1:${port}/plain/v1/chat/completions`, modules);
  } finally {
    if (proxy.exitCode === null) {
      const exited = new Promise((r) => proxy.once('exit', r));
      proxy.kill();
      await exited;
    }
  }
}

async function readings(name: string, primary: number, url: string, modules: string): Promise<void> {
  const call = async (): Promise<void> => {
    const res = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      dispatcher: agent,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes('Paris')) throw new Error(`${res.statusCode} ${text.slice(0, 200)}`);
  };
  // Warm every worker's route and pool, then let the process settle before the idle reading.
  for (let i = 0; i < 200; i++) await Promise.all(Array.from({ length: 16 }, call));
  await new Promise((r) => setTimeout(r, 2000));
  const kids = childPids(primary);
  const idle = { primary: pssMiB(primary), workers: kids.map(pssMiB) };
  const loaded = moduleCounts(modules);
  if (heapSnapshots) for (const k of kids) process.kill(k, 'SIGUSR2');
  const peak = kids.map(() => 0);
  let calls = 0;
  const end = Date.now() + seconds * 1000;
  const sampler = setInterval(() => kids.forEach((k, i) => (peak[i] = Math.max(peak[i]!, pssMiB(k)))), 250);
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (Date.now() < end) await call().then(() => calls++);
    }),
  );
  clearInterval(sampler);
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const f = (n: number): string => n.toFixed(1);
  console.log(
    `${name}: load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${kids.length} workers; ${calls} calls in ${seconds} s`,
  );
  console.log(`  primary           PSS ${f(idle.primary)} MiB (goal ≤ 25), ${loaded.get(primary) ?? '?'} modules`);
  for (const [i, k] of kids.entries())
    console.log(
      `  worker pid ${k}  PSS idle ${f(idle.workers[i]!)} MiB (goal ≤ 55), peak under load ${f(peak[i]!)} MiB (goal ≤ 70), ${loaded.get(k) ?? '?'} modules`,
    );
  console.log(
    `  total             PSS idle ${f(idle.primary + sum(idle.workers))} MiB, under load ${f(idle.primary + sum(peak))} MiB (goal ≤ 120)`,
  );
}

async function main(): Promise<void> {
  const upstream = start(['--import', 'tsx', 'bench/llm/upstream.ts'], 'upstream');
  const upstreamPort = new URL(await firstLine(upstream)).port;
  const [port, xds, health, metrics] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const manifests = readFileSync(path.join(root, 'bench/memory/llm-manifests.yaml'), 'utf8')
    .replace('${LLM_UPSTREAM_PORT}', upstreamPort)
    .replace('${GW_PORT}', String(port));
  mkdirSync(path.join(work, 'manifests'));
  writeFileSync(path.join(work, 'manifests/all.yaml'), manifests);
  const gw = path.join(root, 'bin/gw.js');
  const controller = start(
    [
      gw,
      'controller',
      '--manifests',
      path.join(work, 'manifests'),
      '--xds-port',
      `${xds}`,
      '--health-port',
      `${health}`,
      '--metrics-port',
      `${metrics}`,
    ],
    'controller',
  );
  await until200(`http://127.0.0.1:${health}/readyz`, controller, agent);
  for (const build of builds) await measure(build, { port, xds });
}

try {
  await main();
} finally {
  for (const c of children.reverse()) c.kill();
  await agent.close();
  rmSync(work, { recursive: true, force: true });
}
