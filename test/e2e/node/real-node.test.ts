// The path every user takes, on a real one-node cluster (node-cluster.ts): `helm install` of the chart with the
// image `make image` built → the controller pod runs and wins its lease → a Gateway makes the deployer create a
// proxy Deployment → the proxy pod reads its bootstrap and dials the controller's Service over TLS with its
// projected token → an MCP SDK client through the proxy Service reaches an MCP server running as a pod. The
// tests run in order on one cluster: each builds on the state the one before left.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppsV1Api, CoordinationV1Api, CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mustInstall } from '../chart/helm-release.js';
import { apply, type Obj } from '../controller/support/objects.js';
import { kubeConfigFrom, kubectl } from '../support/kube.js';
import { gwImages, startNodeCluster, until, type NodeCluster } from './node-cluster.js';

const SYSTEM_NS = 'gw-system';
const NS = 'apps';
const GATEWAY = 'mcp-gateway';
const registry = 'ghcr.io/gw-dev';
const tag = gwImages.controller.split(':')[1]!;

let node: NodeCluster;
let kc: KubeConfig;
let core: CoreV1Api;
let apps: AppsV1Api;
let leases: CoordinationV1Api;

function isReady(pod: V1Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp && !!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

async function readyPods(namespace: string, selector: string): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.filter(isReady);
}

/** The holder of the controller's leader-election Lease (the only Lease in the release's namespace). */
async function leaseHolder(): Promise<string | undefined> {
  const [lease] = (await leases.listNamespacedLease({ namespace: SYSTEM_NS })).items;
  return lease?.spec?.holderIdentity ?? undefined;
}

/** The MCP server of the tests: the image's Node running echo-mcp-server.mjs from a ConfigMap, behind a Service. */
function echoServerObjects(): Obj[] {
  const labels = { app: 'echo-mcp' };
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'echo-mcp', namespace: NS },
      data: { 'server.mjs': readFileSync(join(import.meta.dirname, 'echo-mcp-server.mjs'), 'utf8') },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'echo-mcp', namespace: NS },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: 'server',
                image: gwImages.proxy,
                imagePullPolicy: 'Never',
                command: ['/usr/local/bin/node', '/srv/server.mjs'],
                ports: [{ containerPort: 8000 }],
                readinessProbe: { httpGet: { path: '/healthz', port: 8000 }, periodSeconds: 1 },
                volumeMounts: [{ name: 'src', mountPath: '/srv' }],
              },
            ],
            volumes: [{ name: 'src', configMap: { name: 'echo-mcp' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'echo-mcp', namespace: NS },
      spec: { selector: labels, ports: [{ name: 'http', port: 8000 }] },
    },
  ];
}

function gatewayObjects(): Obj[] {
  return [
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: GATEWAY, namespace: NS },
      spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', protocol: 'HTTP', port: 8080 }] },
    },
    {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwBackend',
      metadata: { name: 'echo', namespace: NS },
      spec: {
        mcp: { targets: [{ name: 'echo', static: { backendRef: { name: 'echo-mcp' }, port: 8000, path: '/mcp' } }] },
      },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'mcp', namespace: NS },
      spec: {
        parentRefs: [{ name: GATEWAY }],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/mcp' } }],
            backendRefs: [{ group: 'gw.dev', kind: 'GwBackend', name: 'echo' }],
          },
        ],
      },
    },
    {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwPolicy',
      metadata: { name: 'mcp-cors', namespace: NS },
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'mcp' }],
        traffic: { cors: { allowOrigins: ['https://app.example'], allowHeaders: ['*'] } },
      },
    },
  ];
}

/** The proxy Service's ClusterIP: reached from this host through kube-proxy's rules, as a pod would. */
async function proxyUrl(): Promise<string> {
  const svc = await core.readNamespacedService({ name: GATEWAY, namespace: NS });
  return `http://${svc.spec!.clusterIP}:8080/mcp`;
}

/** One MCP session through the proxy Service: connect, call `whoami`, end the session (DELETE); the tool's text. */
async function callWhoami(url: string): Promise<string> {
  const client = new Client({ name: 'real-node-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  try {
    const res = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
    return res.content[0]!.text;
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}

/** An error and its causes in one line (fetch's `fetch failed` says why only in `cause`). */
function errorChain(err: unknown): string {
  const parts: string[] = [];
  for (let e = err; e instanceof Error; e = e.cause)
    parts.push(`${e.message}${(e as { code?: string }).code ? ` (${(e as { code?: string }).code})` : ''}`);
  return parts.join(': ') || String(err);
}

beforeAll(async () => {
  node = await startNodeCluster();
  kc = kubeConfigFrom(node.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
  leases = kc.makeApiClient(CoordinationV1Api);
}, 600_000);

afterAll(async () => {
  await node?.stop();
}, 120_000);

describe('a real node', () => {
  it('helm install with the built image: the controller pod becomes Ready and holds the lease', async () => {
    await core.createNamespace({ body: { metadata: { name: SYSTEM_NS } } });
    await mustInstall(node.kubeconfig, {
      name: 'gw',
      namespace: SYSTEM_NS,
      values: { 'image.registry': registry, 'image.tag': tag, 'image.pullPolicy': 'Never' },
    });
    const [pod] = await until('controller pod Ready', async () => {
      const pods = await readyPods(SYSTEM_NS, 'app.kubernetes.io/name=gw');
      return pods.length ? pods : undefined;
    });
    const holder = await until('lease held', leaseHolder);
    expect(holder).toContain(pod!.metadata!.name!);
  }, 300_000);

  it('Gateway + GwBackend + HTTPRoute + GwPolicy: an MCP client through the proxy Service gets the tool answer of a pod', async () => {
    await core.createNamespace({ body: { metadata: { name: NS } } });
    for (const obj of [...echoServerObjects(), ...gatewayObjects()]) await apply(kc, obj);
    await until('proxy Deployment available', async () => {
      const d = await apps.readNamespacedDeployment({ name: GATEWAY, namespace: NS });
      return (d.status?.availableReplicas ?? 0) >= 1 ? d : undefined;
    });
    await until('MCP server Ready', async () => ((await readyPods(NS, 'app=echo-mcp')).length ? true : undefined));
    const url = await proxyUrl();
    const text = await until('tool answer through the proxy', () => callWhoami(url), 120_000);
    const [server] = await readyPods(NS, 'app=echo-mcp');
    expect(text).toBe(`pod ${server!.metadata!.name}`);
    // The GwPolicy reached the proxy: a preflight from the allowed origin is answered for it.
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
  }, 300_000);

  it('a rolling update of the proxy Deployment under steady client load fails no request (the drain)', async () => {
    const url = await proxyUrl();
    const before = (await readyPods(NS, `gw.dev/gateway=${GATEWAY}`)).map((p) => p.metadata!.name!);
    let done = false;
    const outcomes = { ok: 0, failed: [] as string[] };
    // Two clients, each a new MCP session per call (new connections through the Service) and back to back.
    const load = [0, 1].map(async () => {
      while (!done) {
        try {
          await callWhoami(url);
          outcomes.ok++;
        } catch (err) {
          outcomes.failed.push(`${new Date().toISOString()} ${errorChain(err)}`);
        }
      }
    });
    await until('load flowing', async () => (outcomes.ok >= 5 ? true : undefined));
    const restart = await kubectl(node.kubeconfig, ['rollout', 'restart', `deployment/${GATEWAY}`, '-n', NS]);
    expect(restart.code, restart.stderr).toBe(0);
    const status = await kubectl(node.kubeconfig, [
      'rollout',
      'status',
      `deployment/${GATEWAY}`,
      '-n',
      NS,
      '--timeout=240s',
    ]);
    expect(status.code, status.stderr).toBe(0);
    // The old pods are gone (terminated after their drain), and traffic reached the new ones.
    await until('old proxy pods gone', async () => {
      const names = (
        await core.listNamespacedPod({ namespace: NS, labelSelector: `gw.dev/gateway=${GATEWAY}` })
      ).items.map((p) => p.metadata!.name!);
      return names.some((n) => before.includes(n)) ? undefined : true;
    });
    const okAfterRollout = outcomes.ok;
    await until('load through the new pods', async () => (outcomes.ok >= okAfterRollout + 5 ? true : undefined));
    done = true;
    await Promise.all(load);
    // The failures themselves are the message: the closing summary prints it, so a CI tail says what failed.
    expect(outcomes.failed, `failed calls: ${outcomes.failed.join(' | ')}`).toEqual([]);
    expect(outcomes.ok).toBeGreaterThan(10);
  }, 360_000);

  it('the controller pod killed: a new pod takes the lease and the proxy follows its configuration', async () => {
    const [old] = await readyPods(SYSTEM_NS, 'app.kubernetes.io/name=gw');
    await core.deleteNamespacedPod({ name: old!.metadata!.name!, namespace: SYSTEM_NS, gracePeriodSeconds: 0 });
    const holder = await until('a new leader', async () => {
      const h = await leaseHolder();
      return h && !h.includes(old!.metadata!.name!) ? h : undefined;
    });
    const [fresh] = await until('new controller pod Ready', async () => {
      const pods = await readyPods(SYSTEM_NS, 'app.kubernetes.io/name=gw');
      return pods.length ? pods : undefined;
    });
    expect(holder).toContain(fresh!.metadata!.name!);
    // A policy change made now reaches the proxy only over a stream to the new controller.
    await apply(kc, {
      ...gatewayObjects()[3]!,
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'mcp' }],
        traffic: { cors: { allowOrigins: ['https://other.example'], allowHeaders: ['*'] } },
      },
    });
    const url = await proxyUrl();
    await until('the new policy served', async () => {
      const res = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin: 'https://other.example', 'access-control-request-method': 'POST' },
      });
      return res.headers.get('access-control-allow-origin') === 'https://other.example' ? true : undefined;
    });
    expect(await callWhoami(url)).toMatch(/^pod echo-mcp-/);
  }, 300_000);

  it('deleting the Gateway garbage-collects the proxy workload', async () => {
    const owned = await apps.readNamespacedDeployment({ name: GATEWAY, namespace: NS });
    expect(owned.metadata?.ownerReferences?.map((o) => o.kind)).toContain('Gateway');
    const gw = await kubectl(node.kubeconfig, ['delete', 'gateway', GATEWAY, '-n', NS, '--wait=true']);
    expect(gw.code, gw.stderr).toBe(0);
    await until('proxy Deployment, Service and pods gone', async () => {
      const deployments = await apps.listNamespacedDeployment({
        namespace: NS,
        labelSelector: `gw.dev/gateway=${GATEWAY}`,
      });
      const services = (await core.listNamespacedService({ namespace: NS })).items.filter(
        (s) => s.metadata?.name === GATEWAY,
      );
      const pods = await core.listNamespacedPod({ namespace: NS, labelSelector: `gw.dev/gateway=${GATEWAY}` });
      return deployments.items.length + services.length + pods.items.length === 0 ? true : undefined;
    });
  }, 300_000);
});
