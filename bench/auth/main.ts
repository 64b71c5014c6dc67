// Benchmark: tools/call through strict MCP auth (token cached after the first request) vs the same
// endpoint without auth, side by side on loopback. Bounded: BENCH_SECONDS per side (default 5).
// Run: npx tsx bench/auth/main.ts
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Pool } from 'undici';
import { createLogger } from '../../src/log.js';
import { createMcpAuth, type McpAuth } from '../../src/proxy/auth/index.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const issuer = 'https://issuer.bench/tenant';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A deliberately cheap tools/call so the measured difference is the auth module's cost. */
async function toolsCall(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  const rpc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; params: { arguments: { text: string } } };
  const body = JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: { content: [{ type: 'text', text: rpc.params.arguments.text }] } });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

function gateway(auth: McpAuth | undefined): Server {
  return createServer((req, res) => {
    void (async () => {
      if (auth) {
        if (await auth.handle(req, res)) return;
        if (!(await auth.authenticate(req, res))) return;
      }
      await toolsCall(req, res);
    })();
  });
}

interface Result { requests: number; errors: number; rps: number; p50: number; p99: number }

async function load(origin: string, headers: Record<string, string>): Promise<Result> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t = performance.now();
      const r = await pool.request({ path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
      await r.body.text();
      if (r.statusCode !== 200) errors++;
      latencies.push(performance.now() - t);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50: q(0.5), p99: q(0.99) };
}

async function main(): Promise<number> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const keys = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  const keysUrl = `${await listen(keys)}/keys`;

  const plain = gateway(undefined);
  const plainOrigin = await listen(plain);
  const authed = createServer();
  const authedOrigin = await listen(authed);
  const auth = createMcpAuth(
    { mode: 'strict', issuer, audiences: [`${authedOrigin}/mcp`], jwks: keysUrl, mcpPath: '/mcp', resourceMetadata: { resource: `${authedOrigin}/mcp` } },
    { log: createLogger({ level: 'warn' }) },
  );
  authed.on('request', gateway(auth).listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void);
  const token = await new SignJWT({ sub: 'bench', roles: ['mcp.user'] })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer(issuer).setAudience(`${authedOrigin}/mcp`).setIssuedAt().setExpirationTime('1h')
    .sign(privateKey);

  // Warm both paths (JIT, key fetch, token cache) before measuring.
  await load(plainOrigin, {});
  await load(authedOrigin, { authorization: `Bearer ${token}` });
  const base = await load(plainOrigin, {});
  const strict = await load(authedOrigin, { authorization: `Bearer ${token}` });

  const row = (name: string, r: Result) => `${name.padEnd(14)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(7)}`;
  console.log(`tools/call, ${concurrency} connections, ${seconds}s per side, loopback`);
  console.log(`${'side'.padEnd(14)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)}`);
  console.log(row('no auth', base));
  console.log(row('strict auth', strict));
  const cost = 1 - strict.rps / base.rps;
  console.log(`throughput ratio ${(strict.rps / base.rps).toFixed(3)} (auth costs ${(cost * 100).toFixed(1)}%), added p99 ${(strict.p99 - base.p99).toFixed(2)} ms; target <= 10%: ${cost <= 0.1 ? 'met' : 'missed'}`);

  for (const s of [plain, authed, keys]) s.close();
  auth.close();
  return base.errors + strict.errors > 0 ? 1 : 0;
}

process.exitCode = await main();
