// System tests: a local-mode controller (in-process, the real xDS server) and real `gw proxy`
// processes subscribed over loopback, talked to with the MCP SDK's client.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseControllerFlags } from '../../src/cli/controller.js';
import { startLocalServer, type LocalServer } from '../../src/controller/local/serve-local.js';

import { freePort } from '../proxy/ports.js';

export { freePort };

export const log = pino({ level: process.env.GW_TEST_LOG ?? 'silent' });
/** Only between polls and paced calls: tests wait for events (waitFor), never for time. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** The example's objects with the ports and paths a test needs. */
export function writeManifests(dir: string, o: { listenerPort: number; targetUrl: URL; routePath: string }): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'gateway.yaml'),
    `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: default}
spec:
  gatewayClassName: gw
  listeners: [{name: http, protocol: HTTP, port: ${o.listenerPort}}]
`,
  );
  writeRoute(dir, o.routePath);
  writeFileSync(
    join(dir, 'backend.yaml'),
    `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: tools, namespace: default}
spec:
  mcp:
    targets:
    - name: fx
      static: {host: ${o.targetUrl.hostname}, port: ${o.targetUrl.port}, path: ${o.targetUrl.pathname}, protocol: StreamableHTTP}
`,
  );
  writeFileSync(join(dir, 'policy.yaml'), corsPolicy('*'));
}

/** GwPolicy `cors` on HTTPRoute `mcp`, allowing `origin`. */
export function corsPolicy(origin: string): string {
  return `apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: cors, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: mcp}]
  traffic:
    cors: {allowOrigins: ["${origin}"], exposeHeaders: [Mcp-Session-Id]}
`;
}

/** Writes HTTPRoute `name` (file `<name>.yaml`, `route.yaml` for the example's `mcp`) to GwBackend tools. */
export function writeRoute(dir: string, path: string, name = 'mcp'): void {
  writeFileSync(
    join(dir, name === 'mcp' ? 'route.yaml' : `${name}.yaml`),
    `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - matches: [{path: {type: PathPrefix, value: ${path}}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: tools}]
`,
  );
}

export async function startController(manifests: string, statusDir: string, xdsPort: number): Promise<LocalServer> {
  const cfg = parseControllerFlags([
    '--manifests',
    manifests,
    '--status-dir',
    statusDir,
    '--xds-port',
    String(xdsPort),
    '--health-port',
    '0',
    '--metrics-port',
    '0',
  ]);
  return startLocalServer(cfg, log, { host: '127.0.0.1', debounceMs: 20 });
}

export interface GwProcess {
  child: ChildProcess;
  /** The last 20 kB of its stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

export interface ProxyProcess extends GwProcess {
  readyUrl: string;
}

/** `gw <args>` from source as a child process, without the environment's xDS and config settings. */
function spawnGw(args: string[]): GwProcess {
  const env = { ...process.env };
  delete env.GW_XDS_ADDRESS;
  delete env.GW_CONFIG;
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/gw-cli.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return {
    child,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

/** `gw controller --manifests` (local mode) as a child process, on the given loopback ports. */
export function startControllerProcess(o: {
  manifests: string;
  statusDir: string;
  xdsPort: number;
  healthPort: number;
  metricsPort: number;
}): GwProcess & { readyUrl: string; metricsUrl: string } {
  const gw = spawnGw([
    'controller',
    '--manifests',
    o.manifests,
    '--status-dir',
    o.statusDir,
    '--xds-port',
    String(o.xdsPort),
    '--health-port',
    String(o.healthPort),
    '--metrics-port',
    String(o.metricsPort),
    '--log-level',
    'info',
  ]);
  return {
    ...gw,
    readyUrl: `http://127.0.0.1:${o.healthPort}/readyz`,
    metricsUrl: `http://127.0.0.1:${o.metricsPort}/metrics`,
  };
}

/** `gw proxy` in xDS mode as a child process; gateway listeners bind `listenAddress`. */
export function startProxyProcess(o: {
  xdsPort: number;
  gateway: string;
  pod: string;
  listenAddress: string;
  readyPort: number;
  /** Default 0: a port nobody is told. */
  metricsPort?: number;
  extra?: string[];
}): ProxyProcess {
  const gw = spawnGw([
    'proxy',
    '--xds-address',
    `127.0.0.1:${o.xdsPort}`,
    '--gateway',
    o.gateway,
    '--pod-name',
    o.pod,
    '--listen-address',
    o.listenAddress,
    '--ready-address',
    `127.0.0.1:${o.readyPort}`,
    '--metrics-address',
    `127.0.0.1:${o.metricsPort ?? 0}`,
    '--log-level',
    'info',
    // No load balancer to drain from here: stop at once (the xDS-mode default keeps serving for 5 s).
    '--shutdown-min-delay',
    '0',
    ...(o.extra ?? []),
  ]);
  return { ...gw, readyUrl: `http://127.0.0.1:${o.readyPort}/healthz/ready` };
}

/**
 * One `gw proxy` (xDS mode, gateway default/web) per loopback address, pods `proxy-0`, `proxy-1`…, each awaited
 * until ready. When one is not ready within `timeoutMs`, all are stopped and the error holds its output.
 */
export async function startReadyProxies(o: {
  xdsPort: number;
  listenAddresses: string[];
  timeoutMs?: number;
}): Promise<ProxyProcess[]> {
  const proxies: ProxyProcess[] = [];
  for (const [i, listenAddress] of o.listenAddresses.entries())
    proxies.push(
      startProxyProcess({
        xdsPort: o.xdsPort,
        gateway: 'default/web',
        pod: `proxy-${i}`,
        listenAddress,
        readyPort: await freePort(),
      }),
    );
  for (const p of proxies)
    await waitFor(`proxy ready at ${p.readyUrl}`, () => isReady(p.readyUrl), o.timeoutMs ?? 60_000).catch(
      async (err: Error) => {
        const state = p.child.exitCode ?? p.child.signalCode;
        const how = state === null ? 'still starting' : `exited (${state})`;
        await Promise.all(proxies.map((q) => q.stop()));
        throw new Error(`${err.message}; the proxy was ${how}, its output:\n${p.output() || '(none yet)'}`);
      },
    );
  return proxies;
}

export async function isReady(url: string): Promise<boolean> {
  const res = await fetch(url).catch(() => undefined);
  return res?.status === 200;
}

export async function connectMcp(url: string): Promise<Client> {
  const client = new Client({ name: 'system-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Status of a POST to an MCP URL with a bare initialize: 200 when a route serves it, 404 when none does. */
export async function initializeStatus(url: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    }),
  });
  await res.body?.cancel();
  return res.status;
}

export interface Load {
  /** Successful calls so far. */
  ok(): number;
  /** Ends the load and returns every failure seen. */
  stop(): Promise<string[]>;
}

/** The load's pace: each client's next call follows its last answer after this long. */
const LOAD_PACE_MS = 10;

/** Steady, bounded load: one echo call at a time per client, LOAD_PACE_MS apart, until stopped. */
export function startEchoLoad(clients: Client[]): Load {
  let ok = 0;
  let running = true;
  const failures: string[] = [];
  const loops = clients.map(async (c, i) => {
    for (let n = 0; running && n < 5000; n++) {
      try {
        const r = await c.callTool({ name: 'echo', arguments: { text: `${i}-${n}` } });
        if (r.isError) failures.push(`client ${i}: tool error`);
        else ok++;
      } catch (err) {
        failures.push(`client ${i}: ${(err as Error).message}`);
      }
      await sleep(LOAD_PACE_MS);
    }
  });
  return {
    ok: () => ok,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return failures;
    },
  };
}
