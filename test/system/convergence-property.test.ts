// Convergence as a property (issue 32): random sequences of valid and invalid changes (the HTTP
// listener's port, a second HTTPS listener with a good, another or a mismatched certificate, ports
// taken by another process, a backend the proxy refuses, policies, the route's path) against a real
// local-mode controller and a real proxy (in-process, real listeners) end with that proxy serving
// exactly what a fresh controller and proxy started on the final manifests serve, and with the same
// statuses. Steps either wait for the proxy to answer the change or go on at once, so pushes overlap
// NACKs. The controllers re-send nothing on a timer here (a one-hour backoff): convergence must come
// from the protocol. Each change is applied by the controller's own reload, which its folder watch
// calls too. GW_PROPERTY_SEED=<n> replays a run.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseControllerFlags } from '../../src/cli/controller.js';
import { startLocalServer, type LocalServer } from '../../src/controller/local/serve-local.js';
import { startXdsProxy, type XdsProxy } from '../../src/proxy/xds-config.js';
import { versionSnapshot } from '../../src/xds/snapshot.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { corsPolicy, freePort, initializeStatus, log, waitFor, writeRoute } from './harness.js';

type Slot = 'p1' | 'p2' | 'taken';
interface Config {
  httpPort: Slot;
  https: { port: Slot; cert: 'a' | 'a2' | 'mismatch' } | null;
  backend: 'one' | 'two' | 'refused';
  policy: 'none' | 'cors' | 'cors-other';
  path: '/mcp' | '/v2';
}

const slot = fc.constantFrom<Slot>('p1', 'p2', 'taken');
const fields = {
  httpPort: slot,
  https: fc.option(fc.record({ port: slot, cert: fc.constantFrom<'a' | 'a2' | 'mismatch'>('a', 'a2', 'mismatch') })),
  backend: fc.constantFrom<Config['backend']>('one', 'two', 'refused'),
  policy: fc.constantFrom<Config['policy']>('none', 'cors', 'cors-other'),
  path: fc.constantFrom<Config['path']>('/mcp', '/v2'),
};
const config: fc.Arbitrary<Config> = fc.record(fields);
/** A step changes some fields (often one, as an edit does) and may wait for the proxy's answer. */
const step = fc.record({
  change: fc.record(fields, { requiredKeys: [] }) as fc.Arbitrary<Partial<Config>>,
  settle: fc.boolean(),
});

const GATEWAY = 'default/web';
const POD = 'proxy-0';
const tlsData = join(import.meta.dirname, '../proxy/tls-testdata');
const b64 = (f: string) => readFileSync(join(tlsData, f)).toString('base64');
const CERTS = { a: ['a.crt', 'a.key'], a2: ['a2.crt', 'a2.key'], mismatch: ['b.crt', 'a.key'] } as const;

describe('convergence after valid and invalid changes', () => {
  const ports = {} as Record<Slot, number>;
  const blockers: Server[] = [];
  const fixtures: Record<'one' | 'two', HttpFixture> = {} as never;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-converge-'));
    [ports.p1, ports.p2, ports.taken] = [await freePort(), await freePort(), await freePort()];
    // Another process's port, on both addresses the proxies listen on.
    for (const host of ['127.0.0.1', '127.0.0.2']) {
      const s = createServer();
      await new Promise<void>((resolve) => s.listen(ports.taken, host, resolve));
      blockers.push(s);
    }
    fixtures.one = await startHttpFixture({ id: 'one' });
    fixtures.two = await startHttpFixture({ id: 'two' });
  });

  afterAll(async () => {
    for (const b of blockers) b.close();
    await fixtures.one?.close();
    await fixtures.two?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The manifests of a configuration (files it does not use are removed by writing them empty). */
  const write = (manifests: string, c: Config) => {
    const https = c.https
      ? `, {name: https, protocol: HTTPS, port: ${ports[c.https.port]}, hostname: a.example.test, tls: {certificateRefs: [{name: a-cert}]}}`
      : '';
    const files: Record<string, string> = {
      'gateway.yaml': `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: default}
spec:
  gatewayClassName: gw
  listeners: [{name: http, protocol: HTTP, port: ${ports[c.httpPort]}}${https}]
`,
      'secret.yaml': c.https
        ? `apiVersion: v1
kind: Secret
metadata: {name: a-cert, namespace: default}
type: kubernetes.io/tls
data: {tls.crt: "${b64(CERTS[c.https.cert][0])}", tls.key: "${b64(CERTS[c.https.cert][1])}"}
`
        : '',
      // The CRD asks only that the ARN start with `arn:`; the proxy refuses a Lambda ARN (no AgentCore runtime).
      'backend.yaml': `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: tools, namespace: default}
spec:
${
  c.backend === 'refused'
    ? "  aws: {agentCore: {agentRuntimeArn: 'arn:aws:lambda:us-east-1:123456789012:function:plain'}}"
    : `  mcp:
    targets:
    - name: fx
      static: {host: 127.0.0.1, port: ${new URL(fixtures[c.backend].url).port}, path: /mcp, protocol: StreamableHTTP}`
}
`,
      'policy.yaml': c.policy === 'none' ? '' : corsPolicy(c.policy === 'cors' ? '*' : 'https://app.example.test'),
    };
    for (const [name, text] of Object.entries(files)) writeFileSync(join(manifests, name), text);
    writeRoute(manifests, c.path);
  };

  it('ends every sequence with the proxy serving what a fresh proxy serves, and the same statuses', async () => {
    const seed = process.env.GW_PROPERTY_SEED ? Number(process.env.GW_PROPERTY_SEED) : undefined;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(config, fc.array(step, { minLength: 2, maxLength: 16 }), async (initial, steps) => {
        const base = join(dir, `run-${run++}`);
        const manifests = join(base, 'manifests');
        mkdirSync(manifests, { recursive: true });
        let current = initial;
        write(manifests, current);
        const subject = await startPair(manifests, join(base, 'status'), '127.0.0.1');
        try {
          await subject.settled();
          for (const s of steps) {
            current = { ...current, ...s.change };
            write(manifests, current);
            subject.server.controller.reload();
            if (s.settle) await subject.settled();
          }
          const fresh = await startPair(manifests, join(base, 'fresh-status'), '127.0.0.2');
          try {
            await converged(subject, fresh, ports);
          } finally {
            await fresh.stop();
          }
        } finally {
          await subject.stop();
        }
      }),
      { numRuns: 30, endOnFailure: true, ...(seed !== undefined ? { seed } : {}) },
    );
  }, 600_000);
});

interface Pair {
  server: LocalServer;
  proxy: XdsProxy;
  statusDir: string;
  address: string;
  /** Resolves once the proxy has applied the controller's current snapshot. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

const hour = { initialMs: 3_600_000, maxMs: 3_600_000 };

/** A local-mode controller on the folder and one proxy subscribed to it, listening on `address`. */
async function startPair(manifests: string, statusDir: string, address: string): Promise<Pair> {
  const cfg = parseControllerFlags([
    '--manifests',
    manifests,
    '--status-dir',
    statusDir,
    '--xds-port',
    '0',
    '--health-port',
    '0',
    '--metrics-port',
    '0',
  ]);
  const server = await startLocalServer(cfg, log, { host: '127.0.0.1', debounceMs: 20, xdsResendBackoff: hour });
  let applied: string | undefined;
  const proxy = await startXdsProxy({
    address: `127.0.0.1:${server.xds.port}`,
    gateway: GATEWAY,
    podName: POD,
    listenAddress: address,
    log,
    readyAddress: '127.0.0.1:0',
    metricsAddress: '127.0.0.1:0',
  });
  proxy.client.on('update', (u) => (applied = u.systemVersion));
  const current = () => {
    const snap = server.source.get(GATEWAY);
    return snap ? versionSnapshot(snap).systemVersion : undefined;
  };
  return {
    server,
    proxy,
    statusDir,
    address,
    settled: () =>
      waitFor('the proxy applied the current snapshot', () => applied !== undefined && applied === current()),
    stop: async () => {
      await proxy.close();
      await server.stop();
    },
  };
}

/** What a proxy serves and what the statuses say, in a form both pairs can be compared in. */
async function observe(p: Pair, ports: Record<Slot, number>): Promise<unknown> {
  const probes: Record<string, number | string> = {};
  for (const slot of ['p1', 'p2'] as const)
    for (const path of ['/mcp', '/v2'])
      probes[`${slot}${path}`] = await initializeStatus(`http://${p.address}:${ports[slot]}${path}`).catch(
        () => 'closed',
      );
  return {
    resources: Object.fromEntries([...p.proxy.client.versions()].sort()),
    probes,
    statuses: readStatuses(p.statusDir),
    refused: p.server.xds.proxies().map((c) => c.rejected),
  };
}

function readStatuses(root: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      // The fresh pair listens on 127.0.0.2: refusal messages name the address.
      else
        out[relative(root, path)] = stripTimes(parse(readFileSync(path, 'utf8').replaceAll('127.0.0.2', '127.0.0.1')));
    }
  };
  walk(root);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function stripTimes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripTimes);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== 'lastTransitionTime')
        .map(([k, x]) => [k, stripTimes(x)]),
    );
  return v;
}

/** Waits until both pairs have applied their snapshots and agree; fails with the difference. */
async function converged(subject: Pair, fresh: Pair, ports: Record<Slot, number>): Promise<void> {
  await subject.settled();
  await fresh.settled();
  let last: [unknown, unknown] = [undefined, undefined];
  try {
    await waitFor(
      'the proxy and statuses to match a fresh pair',
      async () => {
        last = [await observe(subject, ports), await observe(fresh, ports)];
        return JSON.stringify(last[0]) === JSON.stringify(last[1]);
      },
      15_000,
    );
  } catch {
    expect(last[0]).toEqual(last[1]);
  }
}
