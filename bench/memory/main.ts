// Proxy memory, this build against a baseline build in one run: RSS and heap of a process holding the
// compiled proxy runtime (bench/memory/child.mjs) bare, after importing it, after applying a snapshot and
// after warm-up load, for the MCP bench route (one streamable-HTTP target, as bench/proxy serves) and the
// LLM bench routes (plain and regex-guarded, as bench/llm serves). BENCH_BASELINE: roots of other
// checkouts with dist/ built (default: none, this build only). Bounded: about 20 s.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { configToIr } from '../../src/config/to-ir.js';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { Snapshot } from '../../src/ir/types.js';
import { GATEWAY_WEB, translatedIr } from '../../test/proxy/translated-ir.js';
import { initializeBody } from '../mcp-initialize.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const calls = Number(process.env.BENCH_CALLS ?? 3000);
const concurrency = 16;
// Extra V8 / Node flags for the measured processes (e.g. BENCH_NODE_FLAGS=--max-semi-space-size=2).
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
// BENCH_BASELINE: one or more roots (comma-separated) of other checkouts with dist/ built.
const builds: Array<[string, string]> = [
  ['this build', path.resolve(here, '../..')],
  ...(process.env.BENCH_BASELINE ?? '')
    .split(',')
    .filter(Boolean)
    .map((root): [string, string] => [path.basename(root), path.resolve(root)]),
];
const children: ChildProcess[] = [];
const work = mkdtempSync(path.join(tmpdir(), 'gw-bench-memory-'));
const agent = new Agent({ connections: concurrency });
const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

interface Reading {
  phase: string;
  rss: number;
  heap: number;
  rssAnon: number;
  rssFile: number;
  newSpace: number;
  external: number;
  cpuMs: number;
  gcMs: number;
  gcCount: number;
  url?: string;
}

/** A child's stdout, one line at a time. */
function linesOf(proc: ChildProcess): () => Promise<string> {
  const it = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`exited: ${code}`))));
  return async () => String((await Promise.race([it.next(), exited])).value).trim();
}

async function startUpstream(file: string): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(here, file)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.push(proc);
  return linesOf(proc)();
}

async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; session?: string; text: string }> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    body,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  });
  const sid = res.headers['mcp-session-id'];
  return { status: res.statusCode, text: await res.body.text(), ...(typeof sid === 'string' ? { session: sid } : {}) };
}

/** `n` calls of `one`, `concurrency` at a time. */
async function drive(n: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await one(next++);
    }),
  );
}

async function mcpLoad(base: string): Promise<void> {
  const url = `${base}/mcp`;
  const init = await post(url, initializeBody(), {});
  if (init.status !== 200 || !init.session) throw new Error(`initialize: ${init.status} ${init.text}`);
  const session = { 'mcp-session-id': init.session };
  await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session);
  await drive(calls, async (i) => {
    const res = await post(
      url,
      `{"jsonrpc":"2.0","id":${i + 1},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`,
      session,
    );
    if (res.status !== 200) throw new Error(`tools/call: ${res.status} ${res.text.slice(0, 200)}`);
  });
}

const prompt = JSON.stringify({
  model: 'bench-model',
  messages: [
    { role: 'user', content: `My customer number is 123-45-6789. ${'What is the capital of France? '.repeat(8)}` },
  ],
});

async function llmLoad(base: string): Promise<void> {
  await drive(calls, async (i) => {
    const res = await post(`${base}/${i % 2 ? 'guarded' : 'plain'}/v1/chat/completions`, prompt, {});
    if (res.status !== 200 || !res.text.includes('Paris'))
      throw new Error(`chat: ${res.status} ${res.text.slice(0, 200)}`);
  });
}

/** One measured process: its readings bare, after import, after apply and after `drive`. */
async function measure(root: string, snapshotFile: string, drive: (url: string) => Promise<void>): Promise<Reading[]> {
  const proc = spawn(
    process.execPath,
    ['--expose-gc', ...nodeFlags, path.join(here, 'child.mjs'), root, snapshotFile],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  children.push(proc);
  const next = linesOf(proc);
  const readings: Reading[] = [];
  for (let i = 0; i < 3; i++) readings.push(JSON.parse(await next()) as Reading);
  await drive(readings[2]!.url!);
  proc.stdin!.write('warm\n');
  readings.push(JSON.parse(await next()) as Reading);
  proc.stdin!.end();
  return readings;
}

function llmSnapshot(port: string): Snapshot {
  const backend = (name: string): string =>
    `---\napiVersion: gw.dev/v1alpha1\nkind: GwBackend\nmetadata: {name: ${name}, namespace: default}\nspec:\n  ai: {provider: {openai: {}, host: 127.0.0.1, port: ${port}}}\n`;
  const route = (name: string, to: string): string =>
    `---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: ${name}, namespace: default}\nspec:\n  parentRefs: [{name: web}]\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /${name}}}]\n    backendRefs: [{group: gw.dev, kind: GwBackend, name: ${to}}]\n`;
  const guards = `---\napiVersion: gw.dev/v1alpha1\nkind: GwPolicy\nmetadata: {name: guards, namespace: default}\nspec:\n  targetRefs: [{group: gw.dev, kind: GwBackend, name: llm-guarded}]\n  backend:\n    ai:\n      promptGuard:\n        request: [{regex: {builtins: [Ssn, CreditCard], action: Mask}}]\n        response: [{regex: {builtins: [Email], action: Mask}}]\n`;
  return translatedIr(
    `${GATEWAY_WEB}${backend('llm')}${backend('llm-guarded')}${guards}${route('plain', 'llm')}${route('guarded', 'llm-guarded')}`,
  );
}

const mib = (n: number): string => (n / 1048576).toFixed(1);

async function main(): Promise<void> {
  const mcpUrl = await startUpstream('../proxy/upstream.ts');
  const llmUrl = await startUpstream('../llm/upstream.ts');
  const mcp = normalizeSnapshot(
    configToIr(
      { mcp: { port: 1, host: '127.0.0.1', targets: [{ name: 'bench', streamableHttp: { url: mcpUrl } }] } },
      'bench',
    ),
  );
  for (const r of mcp.resources) if (r.bind) r.bind.port = 0;
  const files = { mcp: path.join(work, 'mcp.json'), llm: path.join(work, 'llm.json') };
  writeFileSync(files.mcp, JSON.stringify(mcp));
  writeFileSync(files.llm, JSON.stringify(llmSnapshot(new URL(llmUrl).port)));
  console.log(
    `proxy memory after two full GCs, MiB (rss / heap used); warm = after ${calls} calls, ${concurrency} concurrent (load ${load()})`,
  );
  console.log(
    '| scenario | build | bare | import | apply | warm | warm: RSS anon / file, V8 new space | CPU import + apply, ms | CPU per call, ms | GC pauses under load, ms (count) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const [scenario, file, driver] of [
    ['MCP tools/call', files.mcp, mcpLoad],
    ['LLM chat (plain + guarded)', files.llm, llmLoad],
  ] as const)
    for (const [name, root] of builds) {
      const r = await measure(root, file, driver);
      const w = r[3]!;
      const split = `${mib(w.rssAnon)} / ${mib(w.rssFile)}, ${mib(w.newSpace)}`;
      const gc = `${(w.gcMs - r[2]!.gcMs).toFixed(1)} (${w.gcCount - r[2]!.gcCount})`;
      const cpu = `${split} | ${(r[2]!.cpuMs - r[0]!.cpuMs).toFixed(0)} | ${((w.cpuMs - r[2]!.cpuMs) / calls).toFixed(3)} | ${gc}`;
      console.log(`| ${scenario} | ${name} | ${r.map((x) => `${mib(x.rss)} / ${mib(x.heap)}`).join(' | ')} | ${cpu} |`);
    }
  console.log(`(load ${load()})`);
}

try {
  await main();
} finally {
  for (const c of children) c.kill();
  await agent.close();
  rmSync(work, { recursive: true, force: true });
}
