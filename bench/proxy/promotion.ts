// Bytes each call leaves in V8's old generation: the proxy (or, for comparison, the bare node:http +
// undici forwarder of bench/llm/floor.ts) in its own process under --trace-gc-nvp, driven at a fixed rate
// by this one, which sums what the scavenges promoted while it measured. A call's objects should die
// young; what they promote is what makes the scavenges and the full collections long (docs/performance.md,
// "Promotion"). Usage: promotion.ts [mcp|llm|floor] [req/s, default 1000] [connections, default 64].
// Bounded: about 8 s.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { initializeBody } from '../mcp-initialize.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const which = process.argv[2] ?? 'mcp';
const rate = Number(process.argv[3] ?? 1000);
const connections = Number(process.argv[4] ?? 64);
const warmSeconds = 2;
const seconds = 4;

interface Child {
  proc: ChildProcess;
  /** The child's URL: its first line that is one (--trace-gc-nvp lines come before and after it). */
  url: Promise<string>;
}

function child(file: string, args: string[], onLine?: (line: string) => void): Child {
  // BENCH_NODE_FLAGS: more flags for the measured process (e.g. --heapsnapshot-signal=SIGUSR2).
  const flags = onLine ? ['--trace-gc-nvp', ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)] : [];
  const proc = spawn(process.execPath, [...flags, '--import', 'tsx', path.join(here, file), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = new Promise<string>((resolve) =>
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (line.startsWith('http')) resolve(line.trim());
      else onLine?.(line);
    }),
  );
  return { proc, url };
}

// Every line of --trace-gc-nvp is one collection; counted while the bench measures.
let counting = false;
const gc = { scavenges: 0, promoted: 0, pauseMs: 0, full: 0 };
function collection(line: string): void {
  const kind = / gc=(\S+)/.exec(line)?.[1];
  if (!counting || !kind) return;
  gc.pauseMs += Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? 0);
  if (kind !== 's') gc.full++;
  else {
    gc.scavenges++;
    gc.promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
}

const upstream = child(which === 'llm' ? '../llm/upstream.ts' : 'cheap-upstream.ts', []);
const upstreamUrl = await upstream.url;
const port = new URL(upstreamUrl).port;
const served =
  which === 'floor'
    ? child('../llm/floor.ts', [port], collection)
    : which === 'llm'
      ? child('../llm/proxy.ts', [port], collection)
      : child('proxy.ts', [upstreamUrl], collection);
const base = await served.url;

const url = which === 'floor' ? `${base}/` : which === 'llm' ? `${base}/plain` : base;
const agent = new Agent({ connections });
const headers: Record<string, string> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
if (which === 'mcp') {
  const init = await request(url, { method: 'POST', dispatcher: agent, headers, body: initializeBody('2025-06-18') });
  await init.body.text();
  headers['mcp-session-id'] = String(init.headers['mcp-session-id']);
  headers['mcp-protocol-version'] = '2025-06-18';
}
let id = 1;
const body = (): string =>
  which === 'mcp'
    ? `{"jsonrpc":"2.0","id":${id++},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
    : JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'What is the capital of France?' }] });

async function one(): Promise<void> {
  const res = await request(url, { method: 'POST', dispatcher: agent, headers, body: body() });
  await res.body.text();
}

async function run(secs: number): Promise<number> {
  const total = rate * secs;
  const started = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one());
  }
  await Promise.all(pending);
  return total;
}

await run(warmSeconds);
counting = true;
const calls = await run(seconds);
counting = false;
console.log(
  `${which} at ${rate} req/s over ${connections} connections: ${(gc.promoted / calls / 1024).toFixed(2)} KiB promoted per call; ` +
    `${gc.scavenges} scavenges, ${gc.full} full collections, ${gc.pauseMs.toFixed(1)} ms of GC pauses in ${seconds} s`,
);
served.proc.kill();
upstream.proc.kill();
await agent.close();
