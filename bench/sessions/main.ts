// Memory per idle MCP session and the session count one proxy holds before its cap refuses: the proxy
// runtime runs in this process (compiled, as `gw proxy` runs it), the target in its own, and sessions
// are opened with raw initialize requests and never deleted. Bounded: a few thousand sessions, ~30 s.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { configToIr } from '../../src/config/to-ir.js';
import type { ProxyRuntime as Runtime } from '../../src/proxy/runtime.js';
import { defaultLimits } from '../../src/proxy/limits.js';
import { initializeBody } from '../mcp-initialize.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const total = Number(process.env.BENCH_SESSIONS ?? 2000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  // Heap figures need a full collection before each reading.
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url)], {
    stdio: 'inherit',
  });
  child.on('exit', (code) => process.exit(code ?? 1));
} else {
  await run(gc);
}

async function run(collect: () => void): Promise<void> {
  const target = spawn(process.execPath, ['--import', 'tsx', path.join(here, '../proxy/upstream.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = String((await createInterface({ input: target.stdout })[Symbol.asyncIterator]().next()).value).trim();
  const mod = (await import(pathToFileURL(path.resolve(here, '../../dist/proxy/runtime.js')).href)) as {
    ProxyRuntime: typeof Runtime;
  };
  const snapshot = normalizeSnapshot(
    configToIr({ mcp: { port: 1, host: '127.0.0.1', targets: [{ name: 't', streamableHttp: { url } }] } }, 'bench'),
  );
  for (const r of snapshot.resources) if (r.bind) r.bind.port = 0;
  const runtime = new mod.ProxyRuntime({
    log: pino({ level: 'warn' }),
    limits: { maxSessions: total, maxSessionsPerClient: total },
  });
  await runtime.apply(snapshot);
  const proxyUrl = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}/mcp`;
  const agent = new Agent({ connections: 64 });
  const init = async (): Promise<number> => {
    const res = await request(proxyUrl, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initializeBody(undefined, 1),
    });
    await res.body.dump();
    return res.statusCode;
  };
  // Warm-up so code, pools and caches are not counted as session memory.
  for (let i = 0; i < 20; i++) await init();
  const reading = (): { heap: number; rss: number } => {
    collect();
    collect();
    const m = process.memoryUsage();
    return { heap: m.heapUsed, rss: m.rss };
  };
  const before = reading();
  const opened = total - 20;
  for (let i = 0; i < opened; i += 50) {
    const statuses = await Promise.all(Array.from({ length: Math.min(50, opened - i) }, init));
    if (statuses.some((s) => s !== 200))
      throw new Error(`initialize answered ${statuses.find((s) => s !== 200)} after ${i} sessions`);
  }
  await new Promise((r) => setTimeout(r, 500));
  const after = reading();
  const refused = await init();
  const heapPerSession = (after.heap - before.heap) / opened;
  console.log(
    JSON.stringify({
      sessions: runtime.sessions.size,
      heapPerSessionKiB: Math.round(heapPerSession / 102.4) / 10,
      rssPerSessionKiB: Math.round((after.rss - before.rss) / opened / 102.4) / 10,
      nextInitializeAtCap: refused,
      // The bound: idle sessions one proxy holds at its default cap (limits.maxSessions), in heap.
      defaultCap: defaultLimits.maxSessions,
      heapAtDefaultCapMiB: Math.round((heapPerSession * defaultLimits.maxSessions) / 104857.6) / 10,
      load: loadavg().map((n) => n.toFixed(2)),
    }),
  );
  await runtime.close();
  await agent.close();
  target.kill();
}
