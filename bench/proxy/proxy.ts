// Bench proxy: a proxy runtime in its own process, one streamable-HTTP target given as argv[2].
// Prints the MCP URL on stdout and runs until killed.
import { pino } from 'pino';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { configToIr } from '../../src/config/to-ir.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';

const upstream = process.argv[2] ?? '';
const snapshot = normalizeSnapshot(configToIr({ mcp: { port: 1, host: '127.0.0.1', targets: [{ name: 'bench', streamableHttp: { url: upstream } }] } }, 'bench'));
for (const r of snapshot.resources) if (r.bind) r.bind.port = 0;
const runtime = new ProxyRuntime({ log: pino({ level: 'warn' }) });
await runtime.apply(snapshot);
console.log(`http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}/mcp`);
// Exit normally on SIGTERM so `--cpu-prof` (BENCH_PROF=proxy.ts) can write its profile.
process.once('SIGTERM', () => void runtime.close().then(() => process.exit(0)));
