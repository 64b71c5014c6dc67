// Benchmark: tools/call with strict MCP auth (token cached after the first request) vs without, side by
// side on loopback, in two settings: a cheap handler (isolates the auth module's cost) and the real proxy
// runtime with bench/proxy's cheap streamable-HTTP MCP target (a stdio target's cost would hide the proxy's). Bounded: BENCH_SECONDS per side (default 5).
// Run: npx tsx bench/auth/main.ts
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Pool } from 'undici';
import { pino } from 'pino';
import { configToIr } from '../../src/config/to-ir.js';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { createLogger } from '../../src/log.js';
import { createMcpAuth, type McpAuth } from '../../src/proxy/auth/index.js';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { initializeBody } from '../mcp-initialize.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
/**
 * Sides alternate in rounds, and the cost is the median of each round's ratio (the two sides of a round
 * ran back to back): noise from a shared machine hits both alike, and one disturbed round cannot move it.
 */
const rounds = Number(process.env.BENCH_ROUNDS ?? 16);
const issuer = 'https://issuer.bench/tenant';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A deliberately cheap tools/call so the measured difference is the auth module's cost. It checks the
 * content type, as any MCP endpoint must: reading one header builds `req.headers`, which Node does lazily,
 * and without it the side without auth would skip a cost the proxy pays on every request anyway.
 */
async function toolsCall(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.headers['content-type'] !== 'application/json') {
    res.writeHead(415).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  const rpc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    id: number;
    params: { arguments: { text: string } };
  };
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: rpc.id,
    result: { content: [{ type: 'text', text: rpc.params.arguments.text }] },
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

/** As the proxy's pipeline does: discovery paths go to handle(), the rest through authenticate() first. */
function gateway(auth: McpAuth | undefined): Server {
  return createServer((req, res) => {
    if (!auth) return void toolsCall(req, res);
    if (auth.paths.includes(req.url ?? '')) return void auth.handle(req, res);
    const result = auth.authenticate(req, res);
    if (result instanceof Promise) void result.then((r) => r && toolsCall(req, res));
    else if (result) void toolsCall(req, res);
  });
}

/** The hand-written cheap MCP upstream of bench/proxy, so the runtime's figure is the proxy's cost, not a target's. */
async function cheapUpstream(): Promise<{ url: string; stop: () => void }> {
  const file = new URL('../proxy/cheap-upstream.ts', import.meta.url).pathname;
  const proc = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: proc.stdout }), 'line')) as [string];
  return { url: line.trim(), stop: () => proc.stdin.end() };
}

interface Result {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  /** CPU (user + system) of this process per request: load generator and gateway together, less noisy than req/s. */
  cpuUs: number;
}

async function load(
  origin: string,
  headers: Record<string, string>,
  path = '/mcp',
  secs = seconds / rounds,
): Promise<Result> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hello' } },
  });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + secs * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t = performance.now();
      const r = await pool.request({
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      });
      await r.body.text();
      if (r.statusCode !== 200) errors++;
      latencies.push(performance.now() - t);
    }
  };
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpu0);
  const elapsed = (performance.now() - start) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  const cpuUs = (cpu.user + cpu.system) / Math.max(1, latencies.length);
  return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50: q(0.5), p99: q(0.99), cpuUs };
}

async function main(): Promise<number> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const keys = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
  );
  const keysUrl = `${await listen(keys)}/keys`;

  const plain = gateway(undefined);
  const plainOrigin = await listen(plain);
  const authed = createServer();
  const authedOrigin = await listen(authed);
  const auth = createMcpAuth(
    {
      mode: 'strict',
      issuer,
      audiences: [`${authedOrigin}/mcp`],
      jwks: keysUrl,
      mcpPath: '/mcp',
      resourceMetadata: { resource: `${authedOrigin}/mcp` },
    },
    { log: createLogger({ level: 'warn' }) },
  );
  authed.on('request', gateway(auth).listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void);
  const token = await new SignJWT({ sub: 'bench', roles: ['mcp.user'] })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer(issuer)
    .setAudience(`${authedOrigin}/mcp`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);

  const bearer = { authorization: `Bearer ${token}` };
  const us = await perCall(auth, token);
  console.log(
    `authenticate() with a cached token, same connection: ${us.toFixed(2)} µs per call (${(1e6 / us).toFixed(0)} calls/s on one core)`,
  );
  const handler = await sideBySide(
    'cheap handler',
    () => load(plainOrigin, {}),
    () => load(authedOrigin, bearer),
  );
  for (const s of [plain, authed]) s.close();
  auth.close();

  // The real runtime: one proxy without auth, one with strict auth for the same cheap HTTP target.
  const upstream = await cheapUpstream();
  const proxies = await Promise.all(
    [false, true].map(async (withAuth) => {
      const runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
      const mcp = {
        port: 1,
        host: '127.0.0.1',
        targets: [{ name: 'local', streamableHttp: { url: upstream.url } }],
        ...(withAuth ? { policies: { mcpAuthentication: { mode: 'strict' as const, issuer, jwks: keysUrl } } } : {}),
      };
      const snap = normalizeSnapshot(configToIr({ mcp }, 'bench.yaml'));
      for (const r of snap.resources) if (r.bind) r.bind.port = 0;
      await runtime.apply(snap);
      const origin = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
      const auth = withAuth ? bearer : {};
      const init = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth },
        body: initializeBody(),
      });
      await init.text();
      const session = init.headers.get('mcp-session-id') ?? '';
      return {
        runtime,
        run: () => load(origin, { ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }),
      };
    }),
  );
  const proxy = await sideBySide('gw proxy runtime, cheap HTTP target', proxies[0]!.run, proxies[1]!.run);
  for (const p of proxies) await p.runtime.close();
  upstream.stop();
  keys.close();
  return handler + proxy > 0 ? 1 : 0;
}

/** Warms both sides (JIT, key fetch, token cache), alternates them in rounds, prints the medians side by side. */
async function sideBySide(title: string, base: () => Promise<Result>, strict: () => Promise<Result>): Promise<number> {
  await base();
  await strict();
  const bs: Result[] = [];
  const ss: Result[] = [];
  for (let i = 0; i < rounds; i++) {
    bs.push(await base());
    ss.push(await strict());
  }
  const median = (rs: Result[], f: (r: Result) => number) =>
    rs.map(f).sort((x, y) => x - y)[Math.floor(rs.length / 2)] ?? 0;
  const summary = (rs: Result[]): Result => ({
    requests: rs.reduce((n, r) => n + r.requests, 0),
    errors: rs.reduce((n, r) => n + r.errors, 0),
    rps: median(rs, (r) => r.rps),
    p50: median(rs, (r) => r.p50),
    p99: median(rs, (r) => r.p99),
    cpuUs: median(rs, (r) => r.cpuUs),
  });
  const b = summary(bs);
  const s = summary(ss);
  const row = (name: string, r: Result) =>
    `${name.padEnd(14)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(7)} ${r.cpuUs.toFixed(1).padStart(9)}`;
  console.log(
    `\n${title}: tools/call, ${concurrency} connections, ${seconds}s per side in ${rounds} alternating rounds (medians), loopback`,
  );
  console.log(
    `${'side'.padEnd(14)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${'CPU µs'.padStart(9)}`,
  );
  console.log(row('no auth', b));
  console.log(row('strict auth', s));
  const ratios = bs.map((r, i) => (ss[i] as Result).rps / r.rps).sort((x, y) => x - y);
  const ratio = ratios[Math.floor(ratios.length / 2)] ?? 0;
  const cost = 1 - ratio;
  console.log(
    `CPU per request (this process: load generator and gateway): ${b.cpuUs.toFixed(1)} vs ${s.cpuUs.toFixed(1)} µs, auth adds ${(s.cpuUs / b.cpuUs - 1) * 100 >= 0 ? '+' : ''}${((s.cpuUs / b.cpuUs - 1) * 100).toFixed(1)}% (load average ${loadavg()[0]?.toFixed(2)})`,
  );
  console.log(
    `throughput ratio ${ratio.toFixed(3)}, median of ${ratios.length} rounds' ratios (${ratios[0]?.toFixed(3)}–${ratios.at(-1)?.toFixed(3)}): auth costs ${(cost * 100).toFixed(1)}%, added p99 ${(s.p99 - b.p99).toFixed(2)} ms; target <= 5%: ${cost <= 0.05 ? 'met' : 'missed'}`,
  );
  return b.errors + s.errors;
}

/** authenticate() alone with a cached token: CPU per call, independent of HTTP and scheduling noise. */
async function perCall(auth: McpAuth, token: string): Promise<number> {
  const bearer = `Bearer ${token}`;
  // One connection presenting one token, as a keep-alive client does.
  const req = { headers: { authorization: bearer, host: 'bench' }, socket: {} } as unknown as IncomingMessage;
  const res = {} as ServerResponse;
  const n = 200_000;
  // authenticate() strips the token from the request (nothing after it may see it): put it back each time.
  for (let i = 0; i < 1000; i++) {
    req.headers.authorization = bearer;
    await auth.authenticate(req, res);
  }
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    req.headers.authorization = bearer;
    const r = auth.authenticate(req, res);
    if (!(r instanceof Promise ? await r : r)) throw new Error('token rejected');
  }
  return ((performance.now() - t) * 1000) / n;
}

process.exitCode = await main();
