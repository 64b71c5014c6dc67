// The tail at light load (issue 42): added p99 at a fixed rate through `gw proxy` as the anchor harness's
// `mcp-open` runs it (the built CLI, its default --workers, the SDK fixture upstream), and the same on the LLM
// route (`gw controller --manifests` feeding `gw proxy` over xDS, the fake OpenAI upstream). Paths: direct
// (straight to the upstream), this build, and BENCH_BASELINE's build if set, interleaved slice by slice, the
// order rotated every round. Added p99 per round = a path's p99 − direct's p99 in that round; the figure is the
// median over rounds. Not in `make bench` (about 2 minutes). Needs dist/ (`npm run build`) in every build.
// TAIL_RATE (300), TAIL_SECONDS per slice (5), TAIL_ROUNDS (4), TAIL_WORKLOADS (mcp,llm), TAIL_WORKERS (--workers
// for both builds; unset: the proxy's default), TAIL_THIS_FLAGS (extra Node flags for this build's proxy only),
// TAIL_BASE_ARGS (extra `gw proxy` arguments for the baseline's, e.g. --workers 1).
// TAIL_TRACE=<dir>: every proxy and upstream process runs bench/tail/trace.mjs and the run ends with the
// attribution of slow calls to what happened around them (bench/tail/attribute.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { firstLine, freePort, until200 } from '../lib/children.js';
import { median } from '../lib/rounds.js';
import { initializeBody } from '../mcp-initialize.js';
import { attribute, type Call } from './attribute.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rate = Number(process.env.TAIL_RATE ?? 300);
const seconds = Number(process.env.TAIL_SECONDS ?? 5);
const rounds = Number(process.env.TAIL_ROUNDS ?? 4);
const workloads = (process.env.TAIL_WORKLOADS ?? 'mcp,llm').split(',');
const workers = process.env.TAIL_WORKERS ? ['--workers', process.env.TAIL_WORKERS] : [];
const traceDir = process.env.TAIL_TRACE;
const builds: Array<[string, string]> = [['this', root]];
if (process.env.BENCH_BASELINE) builds.push(['base', path.resolve(process.env.BENCH_BASELINE)]);
const work = mkdtempSync(path.join(tmpdir(), 'gw-bench-tail-'));
const children: ChildProcess[] = [];
// An upstream has no SIGTERM handler of its own: the tracer's makes it write its trace when stopped.
const upstreamEnv = { TAIL_TRACE_SIGTERM: '1' };
let current = ''; // the workload running: its trace files go under TAIL_TRACE/<workload>/<process>
// As the anchor harness: one keep-alive pool per origin, no pipelining.
const agent = new Agent({ connections: 512, pipelining: 1, keepAliveTimeout: 30_000 });
const la = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function start(args: string[], name: string, env: Record<string, string> = {}, flags: string[] = []): ChildProcess {
  const trace = traceDir ? ['--import', path.join(root, 'bench/tail/trace.mjs')] : [];
  const proc = spawn(process.execPath, [...trace, ...flags, ...args], {
    cwd: root,
    env: { ...process.env, ...env, ...(traceDir ? { TAIL_TRACE_DIR: path.join(traceDir, current, name) } : {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(proc);
  proc.stderr!.on('data', (d: Buffer) => process.stderr.write(`[${name}] ${d}`));
  return proc;
}

interface Path {
  name: string;
  url: string;
  headers: Record<string, string>;
  body: (id: number) => string;
  check: (text: string) => boolean;
  proc?: ChildProcess;
}

/** A proxy of one build: `gw proxy` with these arguments, ready when its readiness port answers 200. */
async function startProxy(name: string, build: string, args: string[], env: Record<string, string> = {}) {
  const ready = await freePort();
  const flags = name === 'this' ? (process.env.TAIL_THIS_FLAGS ?? '').split(' ').filter(Boolean) : [];
  const extra = name === 'base' ? (process.env.TAIL_BASE_ARGS ?? '').split(' ').filter(Boolean) : [];
  const metrics = ['--metrics-address', `127.0.0.1:${await freePort()}`];
  const proc = start(
    [
      path.join(build, 'bin/gw.js'),
      'proxy',
      ...args,
      '--ready-address',
      `127.0.0.1:${ready}`,
      ...metrics,
      ...workers,
      ...extra,
    ],
    `${name}-proxy`,
    env,
    flags,
  );
  await until200(`http://127.0.0.1:${ready}/healthz/ready`, proc, agent);
  return proc;
}

const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const mcpVersion = '2025-06-18';

async function mcpSession(name: string, url: string, proc?: ChildProcess): Promise<Path> {
  const h = { ...mcpHeaders, 'mcp-protocol-version': mcpVersion };
  const init = await request(url, { method: 'POST', dispatcher: agent, headers: h, body: initializeBody(mcpVersion) });
  await init.body.text();
  const session = init.headers['mcp-session-id'];
  if (init.statusCode !== 200 || typeof session !== 'string') throw new Error(`${name}: initialize ${init.statusCode}`);
  const headers = { ...h, 'mcp-session-id': session };
  const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await (await request(url, { method: 'POST', dispatcher: agent, headers, body: note })).body.dump();
  const body = (id: number): string =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`;
  return { name, url, headers, body, check: (t) => t.includes('bench:x'), proc };
}

async function mcpPaths(): Promise<Path[]> {
  const upstream = start(['--import', 'tsx', 'bench/proxy/upstream.ts'], 'mcp-upstream', upstreamEnv);
  const upstreamUrl = await firstLine(upstream);
  const config = path.join(work, 'gw-mcp.yaml');
  const yaml = 'mcp:\n  port: ${GW_PORT}\n  host: 127.0.0.1\n  targets:\n    - name: bench\n      streamableHttp:\n';
  writeFileSync(config, `${yaml}        url: \${MCP_UPSTREAM_URL}\n`);
  const paths = [await mcpSession('direct', upstreamUrl)];
  for (const [name, build] of builds) {
    const port = await freePort();
    const env = { GW_PORT: String(port), MCP_UPSTREAM_URL: upstreamUrl };
    const proc = await startProxy(name, build, ['-f', config, '--no-watch'], env);
    paths.push(await mcpSession(name, `http://127.0.0.1:${port}/mcp`, proc));
  }
  return paths;
}

const llmBody = JSON.stringify({
  model: 'bench-model',
  messages: [
    { role: 'system', content: 'You are a terse assistant. Answer in one sentence. Never reveal personal data.' },
    { role: 'user', content: `My customer number is 123-45-6789. ${'What is the capital of France? '.repeat(8)}` },
  ],
});

async function llmPaths(): Promise<Path[]> {
  const upstream = start(['--import', 'tsx', 'bench/llm/upstream.ts'], 'llm-upstream', upstreamEnv);
  const upstreamUrl = await firstLine(upstream);
  const llm = (name: string, url: string, proc?: ChildProcess): Path => ({
    name,
    url,
    headers: { 'content-type': 'application/json' },
    body: () => llmBody,
    check: (t) => t.includes('Paris'),
    proc,
  });
  const paths = [llm('direct', `${upstreamUrl}/v1/chat/completions`)];
  for (const [name, build] of builds) {
    const [port, xds, health, metrics] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const dir = path.join(work, `manifests-${name}`);
    mkdirSync(dir);
    const manifests = readFileSync(path.join(root, 'bench/memory/llm-manifests.yaml'), 'utf8')
      .replace('${LLM_UPSTREAM_PORT}', new URL(upstreamUrl).port)
      .replace('${GW_PORT}', String(port));
    writeFileSync(path.join(dir, 'all.yaml'), manifests);
    const ports = ['--xds-port', `${xds}`, '--health-port', `${health}`, '--metrics-port', `${metrics}`];
    const controller = spawn(
      process.execPath,
      [path.join(build, 'bin/gw.js'), 'controller', '--manifests', dir, ...ports],
      { cwd: root, stdio: ['pipe', 'ignore', 'inherit'] },
    );
    children.push(controller);
    await until200(`http://127.0.0.1:${health}/readyz`, controller, agent);
    const xdsArgs = ['--xds-address', `127.0.0.1:${xds}`, '--gateway', 'default/web', '--pod-name', 'bench'];
    const proc = await startProxy(name, build, [...xdsArgs, '--listen-address', '127.0.0.1']);
    paths.push(llm(name, `http://127.0.0.1:${port}/plain/v1/chat/completions`, proc));
  }
  return paths;
}

let nextId = 1;
async function send(p: Path, due: bigint, calls: Call[]): Promise<void> {
  const id = nextId++;
  const sent = process.hrtime.bigint();
  const headers = traceDir ? { ...p.headers, 'x-bench-id': String(id) } : p.headers;
  const res = await request(p.url, { method: 'POST', dispatcher: agent, headers, body: p.body(id) });
  const text = await res.body.text();
  if (res.statusCode !== 200 || !p.check(text)) throw new Error(`${p.name}: ${res.statusCode} ${text.slice(0, 200)}`);
  const ms = (t: bigint): number => Number(t) / 1e6;
  calls.push({ id: String(id), path: p.name, due: ms(due), sent: ms(sent), done: ms(process.hrtime.bigint()) });
}

/** Fixed-rate open loop; each call's latency counts from its scheduled send time (no coordinated omission). */
async function openLoop(p: Path, calls: Call[]): Promise<number> {
  const total = Math.round(rate * seconds);
  const started = process.hrtime.bigint();
  const pending: Array<Promise<void>> = [];
  let inflight = 0;
  let dropped = 0;
  for (let i = 0; i < total; i++) {
    const due = started + BigInt(Math.round((i * 1e9) / rate));
    const now = process.hrtime.bigint();
    if (due > now) await new Promise((r) => setTimeout(r, Number(due - now) / 1e6));
    if (inflight >= Math.max(16, rate / 4)) {
      dropped++;
      continue;
    }
    inflight++;
    pending.push(send(p, due, calls).finally(() => inflight--));
  }
  await Promise.all(pending);
  return dropped;
}

const p99 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] ?? NaN;

async function run(workload: string, paths: Path[]): Promise<void> {
  for (let i = 0; i < 200; i++) await Promise.all(paths.map((p) => send(p, process.hrtime.bigint(), [])));
  const all: Call[] = [];
  const added = new Map<string, number[]>(paths.slice(1).map((p) => [p.name, []]));
  console.log(`\n${workload}: ${rate} req/s, ${rounds} rounds × ${seconds} s per path, load average ${la()}`);
  for (let r = 0; r < rounds; r++) {
    const order = paths.map((_, i) => paths[(i + r) % paths.length]!);
    const p99s = new Map<string, number>();
    const line: string[] = [];
    for (const p of order) {
      const calls: Call[] = [];
      const dropped = await openLoop(p, calls);
      const lat = calls.map((c) => c.done - c.due);
      p99s.set(p.name, p99(lat));
      line.push(
        `${p.name} p50 ${median(lat).toFixed(2)} p99 ${p99(lat).toFixed(2)}${dropped ? ` (${dropped} not sent)` : ''}`,
      );
      all.push(...calls);
    }
    for (const [name, xs] of added) xs.push(p99s.get(name)! - p99s.get('direct')!);
    console.log(`  round ${r + 1} (load ${la()}): ${line.join('; ')} ms`);
  }
  for (const [name, xs] of added)
    console.log(
      `  ${name}: added p99 per round ${xs.map((x) => x.toFixed(2)).join(' / ')} ms; median ${median(xs).toFixed(2)} ms`,
    );
  if (traceDir) mkdirSync(traceDir, { recursive: true });
  if (traceDir) writeFileSync(path.join(traceDir, `${workload}-calls.json`), JSON.stringify(all));
  await stop();
  if (traceDir) attribute(traceDir, workload, all);
}

async function stop(): Promise<void> {
  const exits = children.splice(0).map((c) => {
    const exited = new Promise((r) => (c.exitCode !== null ? r(0) : c.once('exit', r)));
    c.stdin?.end();
    c.kill('SIGTERM');
    return exited;
  });
  await Promise.all(exits);
}

try {
  for (const w of workloads) {
    current = w;
    await run(w, w === 'mcp' ? await mcpPaths() : await llmPaths());
  }
} finally {
  await stop();
  await agent.close();
  rmSync(work, { recursive: true, force: true });
}
