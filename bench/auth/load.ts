// The load generator of bench/auth, in its own process so the gateway's CPU per request (read by the
// parent, which hosts the gateways) holds none of the client's: a client's cost of sending its token is
// not the gateway's. Reads one JSON command per line on stdin ({ origin, headers, path, secs,
// concurrency }), runs tools/call for `secs` on a keep-alive pool, answers one JSON line per command.
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

interface Command {
  origin: string;
  headers: Record<string, string>;
  path: string;
  secs: number;
  concurrency: number;
}

const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text: 'hello' } },
});

async function run(c: Command): Promise<{ latencies: number[]; errors: number; elapsed: number }> {
  const pool = new Pool(c.origin, { connections: c.concurrency, pipelining: 1 });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...c.headers };
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + c.secs * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t = performance.now();
      const r = await pool.request({ path: c.path, method: 'POST', headers, body });
      await r.body.text();
      if (r.statusCode !== 200) errors++;
      latencies.push(performance.now() - t);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: c.concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  return { latencies, errors, elapsed };
}

for await (const line of createInterface({ input: process.stdin })) {
  const r = await run(JSON.parse(line) as Command);
  r.latencies.sort((a, b) => a - b);
  const q = (p: number) => r.latencies[Math.min(r.latencies.length - 1, Math.floor(p * r.latencies.length))] ?? 0;
  process.stdout.write(
    `${JSON.stringify({ requests: r.latencies.length, errors: r.errors, elapsed: r.elapsed, p50: q(0.5), p99: q(0.99) })}\n`,
  );
}
