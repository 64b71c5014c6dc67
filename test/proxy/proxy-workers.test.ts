// Issue 17: `gw proxy --workers 2` runs two worker processes on one listener (node:cluster). A session
// begun on one worker is served by the other (one sealed-id key, made once by the primary); readiness
// and metrics answered by the primary cover both workers. Each request of the client opens a new
// connection (an undici Agent per request), so the primary spreads them over the workers.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { stdioFixture, textOf, waitFor } from './harness.js';
import { freePort } from './ports.js';
import { WORKER_SEMI_SPACE_MIB } from '../../src/cli/proxy-workers.js';
import { tempDirs } from '../support/temp-dir.js';

const dir = tempDirs()('gw-workers-');

/** A fresh connection per request: the cluster primary hands connections to workers in turn. */
const freshConnectionFetch = ((url: string | URL, init?: RequestInit) => {
  const agent = new Agent({ pipelining: 0 });
  return undiciFetch(url, { ...(init as object), dispatcher: agent }).finally(() => void agent.close());
}) as unknown as typeof fetch;

async function rawCall(url: string, session: string): Promise<number> {
  const res = await freshConnectionFetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await res.text();
  return res.status;
}

interface Running {
  child: ReturnType<typeof spawn>;
  out(): string;
  port: number;
  ready: number;
  metrics: number;
  /** Where each process of it records the modules it loads (test/support/record-modules.mjs). */
  modules: string;
}

/** The source files (under src/) a process of `r` loaded, keyed by its pid. */
function loadedSources(r: Running): Map<number, string[]> {
  const src = path.resolve('src') + path.sep;
  return new Map(
    readdirSync(r.modules).map((f) => [
      Number(path.basename(f, '.txt')),
      readFileSync(path.join(r.modules, f), 'utf8')
        .split('\n')
        .filter((u) => u.startsWith('file:'))
        .map((u) => new URL(u).pathname)
        .filter((p) => p.startsWith(src))
        .map((p) => p.slice(src.length)),
    ]),
  );
}

async function spawnWorkers(name: string, targets: string): Promise<Running> {
  const [port, ready, metrics] = [await freePort(), await freePort(), await freePort()];
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, `mcp:\n  port: ${port}\n  host: 127.0.0.1\n  targets:\n${targets}`);
  const modules = path.join(dir, `${name}-modules`);
  mkdirSync(modules);
  const env: NodeJS.ProcessEnv = { ...process.env, GW_RECORD_MODULES: modules };
  delete env.SESSION_KEY;
  const args = ['proxy', '-f', file, '--workers', '2'];
  args.push('--ready-address', `127.0.0.1:${ready}`, '--metrics-address', `127.0.0.1:${metrics}`);
  const record = ['--import', './test/support/record-modules.mjs'];
  const child = spawn(process.execPath, [...record, '--import', 'tsx', 'test/fixtures/gw-cli.ts', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${ready}/healthz/ready`).catch(() => undefined))?.status === 200,
    // Four workers compile the proxy under tsx at once: over a minute on a shared 2-core machine.
    150_000,
  );
  return { child, out: () => out, port, ready, metrics, modules };
}

async function stop(r: Running | undefined): Promise<void> {
  if (!r || r.child.exitCode !== null) return;
  const exited = new Promise((done) => r.child.once('exit', done));
  r.child.kill('SIGTERM');
  await exited;
}

async function session(port: number): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'workers-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    fetch: freshConnectionFetch,
  });
  await client.connect(transport);
  return { client, transport };
}

describe('gw proxy --workers 2', () => {
  let target: HttpFixture;
  let remote: Running;
  let local: Running;
  beforeAll(async () => {
    target = await startHttpFixture({ id: 'w' });
    [remote, local] = await Promise.all([
      spawnWorkers('remote', `    - name: w\n      streamableHttp: { url: ${JSON.stringify(target.url)} }\n`),
      spawnWorkers(
        'local',
        `    - name: s\n      stdio: { cmd: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(stdioFixture)}], env: { FIXTURE_ID: s } }\n`,
      ),
    ]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([stop(remote), stop(local)]);
    await target?.close();
  });

  it('is ready only once both workers are, with one generated key for both', async () => {
    // Readiness came over IPC; each worker's own log line may still be in its stdout pipe.
    await expect.poll(() => remote.out().match(/"msg":"proxy started"/g)?.length).toBe(2);
    expect(remote.out()).toContain('SESSION_KEY is not set');
  });

  it('keeps the proxy runtime out of the primary: it loads flags and supervision, the workers serve', () => {
    const loaded = loadedSources(remote);
    const primary = loaded.get(remote.child.pid ?? -1) ?? [];
    expect(primary).toContain('cli/proxy-workers.ts');
    for (const serving of ['cli/proxy-run.ts', 'proxy/runtime.ts', 'proxy/pipeline.ts', 'proxy/standalone.ts'])
      expect(primary).not.toContain(serving);
    // Only the ops server, its error bodies (JSON-RPC's error shape among them) and the session key's parsing
    // come from src/proxy/ (no handler, policy or MCP session code).
    expect(primary.filter((f) => f.startsWith('proxy/')).sort()).toEqual([
      'proxy/http/http-error.ts',
      'proxy/mcp/jsonrpc.ts',
      'proxy/mcp/session-keys.ts',
      'proxy/ops.ts',
      'proxy/proxy-error.ts',
    ]);
    const workers = [...loaded].filter(([pid]) => pid !== remote.child.pid).map(([, files]) => files);
    expect(workers).toHaveLength(2);
    for (const files of workers) expect(files).toContain('proxy/runtime.ts');
  });

  it('loads in a worker only what its configuration uses: no Istio CA client, node-forge or all of jose', () => {
    const workers = readdirSync(remote.modules).filter((f) => f !== `${remote.child.pid}.txt`);
    expect(workers).toHaveLength(2);
    for (const f of workers) {
      const urls = readFileSync(path.join(remote.modules, f), 'utf8');
      // An MCP route: the endpoint loads (lazy/mcp-endpoint.ts, at apply).
      expect(urls).toContain('/src/proxy/mcp/endpoint.ts');
      expect(urls).not.toContain('/src/proxy/identity/istio-ca.ts');
      expect(urls).not.toContain('/node_modules/node-forge/');
      expect(urls).not.toMatch(/node_modules\/jose\/dist\/webapi\/index\.js/);
    }
  });

  it("runs each worker with a smaller young generation than Node's default, the primary's flags kept", () => {
    const workers = [...loadedSources(remote).keys()].filter((pid) => pid !== remote.child.pid);
    expect(workers).toHaveLength(2);
    for (const pid of workers) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(argv).toContain(`--max-semi-space-size=${WORKER_SEMI_SPACE_MIB}`);
      expect(argv).toContain(`--min-semi-space-size=${WORKER_SEMI_SPACE_MIB}`);
      expect(argv).toContain('./test/support/record-modules.mjs');
    }
    const primary = readFileSync(`/proc/${remote.child.pid}/cmdline`, 'utf8').split('\0');
    expect(primary.some((a) => a.includes('semi-space'))).toBe(false);
  });

  it('serves whole sessions across both workers and counts both workers in /metrics', async () => {
    let calls = 0;
    for (let round = 0; round < 2; round++) {
      const { client, transport } = await session(remote.port);
      for (let i = 0; i < 6; i++) {
        expect(textOf(await client.callTool({ name: 'echo', arguments: { text: `${i}` } }))).toBe(`w:${i}`);
        calls++;
        expect((await client.listTools()).tools.length).toBe(9);
      }
      const id = transport.sessionId ?? '';
      await transport.terminateSession();
      await client.close();
      for (let i = 0; i < 4; i++) expect(await rawCall(`http://127.0.0.1:${remote.port}/mcp`, id)).toBe(404);
    }
    // The session was begun on one worker and resumed on the other.
    expect(remote.out()).toContain('session resumed from its sealed id');
    const text = await (await fetch(`http://127.0.0.1:${remote.metrics}/metrics`)).text();
    expect(text).toMatch(new RegExp(`gw_mcp_requests_total\\{method="tools/call"\\} ${calls}\\b`));
  }, 60_000);

  it('ends a session of stdio targets on both workers on DELETE (the primary passes the end on)', async () => {
    const { client, transport } = await session(local.port);
    for (let i = 0; i < 6; i++)
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: `${i}` } }))).toBe(`s:${i}`);
    expect(local.out()).toContain('session resumed from its sealed id');
    // One session, begun once: the worker that resumed it does not log it as started again.
    expect(local.out().match(/"msg":"session started"/g)).toHaveLength(1);
    const id = transport.sessionId ?? '';
    await transport.terminateSession();
    await client.close();
    for (let i = 0; i < 6; i++) expect(await rawCall(`http://127.0.0.1:${local.port}/mcp`, id)).toBe(404);
  }, 60_000);
});
