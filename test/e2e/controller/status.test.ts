// The controller as a process against a real API server: applied Gateway API and Gw objects get their
// status, with observedGeneration, through the status subresource; other controllers' route parents stay.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { KubeClient } from '../../../src/controller/kube-client.js';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';
import { eventually, startController, type ControllerProcess } from './support/controller-process.js';
import {
  apply,
  conditionsOf,
  gateway,
  gatewayClass,
  jwtPolicy,
  mcpBackend,
  mcpRoute,
  read,
  trueAt,
  type Cond,
  type Obj,
} from './support/objects.js';

const GW_API = 'gateway.networking.k8s.io/v1';
const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-status-${suffix}`;
const className = `gw-status-${suffix}`;

describe('controller status', () => {
  const ns = useNamespace('ctl-status');
  const kc = e2eKubeConfig();
  let ctl: ControllerProcess;

  beforeAll(async () => {
    await installGwCrds(inject('kubeconfig'), kc);
    ctl = startController({
      kubeconfig: inject('kubeconfig'),
      identity: `status-${suffix}`,
      controllerName,
      leaderElectionNamespace: ns(),
    });
    await ctl.ready();
    await apply(kc, gatewayClass(className, controllerName));
    await apply(kc, gateway(ns(), 'web', className));
    await apply(kc, mcpBackend(ns(), 'mcp', 3001));
    await apply(kc, mcpRoute(ns(), 'mcp', 'web', 'mcp'));
    await apply(kc, jwtPolicy(ns(), 'jwt', 'mcp'));
  }, 300_000);

  afterAll(async () => {
    await ctl?.stop();
  });

  it('accepts its GatewayClass with observedGeneration', async () => {
    const gc = await read(kc, GW_API, 'GatewayClass', className);
    const c = await eventually(
      async () =>
        trueAt(
          conditionsOf((await read(kc, GW_API, 'GatewayClass', className)).status),
          'Accepted',
          gc.metadata?.generation,
        ),
      60_000,
      'GatewayClass Accepted',
    );
    expect(c.reason).toBe('Accepted');
  });

  it('accepts and programs the Gateway and counts the attached route on its listener', async () => {
    const status = await eventually(
      async () => {
        const g = await read(kc, GW_API, 'Gateway', 'web', ns());
        const conds = conditionsOf(g.status);
        const listeners = (g.status?.listeners ?? []) as { name: string; attachedRoutes: number }[];
        return trueAt(conds, 'Accepted', g.metadata?.generation) &&
          trueAt(conds, 'Programmed', g.metadata?.generation) &&
          listeners[0]?.attachedRoutes === 1
          ? g.status
          : undefined;
      },
      60_000,
      'Gateway Accepted and Programmed',
    );
    expect((status!.listeners as { name: string }[]).map((l) => l.name)).toEqual(['http']);
  });

  it("writes its parent entry on the HTTPRoute and leaves another controller's entry alone", async () => {
    const other = {
      parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'elsewhere' },
      controllerName: 'example.com/other',
      conditions: [
        {
          type: 'Accepted',
          status: 'True',
          reason: 'Accepted',
          message: 'theirs',
          lastTransitionTime: '2024-01-01T00:00:00Z',
          observedGeneration: 1,
        },
      ],
    };
    const route = await read(kc, GW_API, 'HTTPRoute', 'mcp', ns());
    const parents = ((route.status?.parents ?? []) as unknown[]).concat([other]);
    await kcPatchStatus(kc, route, { parents });
    const final = await eventually(
      async () => {
        const r = await read(kc, GW_API, 'HTTPRoute', 'mcp', ns());
        const ps = (r.status?.parents ?? []) as {
          controllerName: string;
          conditions: { type: string; status: string; observedGeneration: number }[];
        }[];
        const ours = ps.find((p) => p.controllerName === controllerName);
        return ours &&
          trueAt(conditionsOf(ours), 'Accepted', r.metadata?.generation) &&
          ps.some((p) => p.controllerName === 'example.com/other')
          ? ps
          : undefined;
      },
      60_000,
      'route parents with ours and theirs',
    );
    expect(final.map((p) => p.controllerName).sort()).toEqual(['example.com/other', controllerName].sort());
  });

  it('reports the GwBackend and the JWT GwPolicy as accepted', async () => {
    await eventually(
      async () =>
        trueAt(conditionsOf((await read(kc, 'gw.dev/v1alpha1', 'GwBackend', 'mcp', ns())).status), 'Accepted', 1),
      60_000,
      'GwBackend Accepted',
    );
    const ancestors = await eventually(
      async () => {
        const p = await read(kc, 'gw.dev/v1alpha1', 'GwPolicy', 'jwt', ns());
        const a = (p.status?.ancestors ?? []) as {
          controllerName: string;
          conditions: {
            type: string;
            status: string;
            observedGeneration: number;
            lastTransitionTime: string;
            reason: string;
          }[];
        }[];
        return a.length && trueAt(a[0]!.conditions, 'Accepted', 1) && trueAt(a[0]!.conditions, 'Attached', 1)
          ? a
          : undefined;
      },
      60_000,
      'GwPolicy Accepted and Attached',
    );
    expect(ancestors[0]!.controllerName).toBe(controllerName);
  });

  it('follows a spec change with a new observedGeneration and keeps lastTransitionTime of unchanged conditions', async () => {
    const before = await read(kc, GW_API, 'Gateway', 'web', ns());
    const accepted = conditionsOf(before.status).find((c) => c.type === 'Accepted')!;
    const changed = gateway(ns(), 'web', className, [
      { name: 'http', port: 8080, protocol: 'HTTP' },
      { name: 'admin', port: 9090, protocol: 'HTTP' },
    ]);
    const applied = await apply(kc, changed);
    expect(applied.metadata!.generation).toBeGreaterThan(before.metadata!.generation!);
    const after = await eventually(
      async () => {
        const g = await read(kc, GW_API, 'Gateway', 'web', ns());
        return trueAt(conditionsOf(g.status), 'Accepted', applied.metadata!.generation) &&
          (g.status?.listeners as unknown[]).length === 2
          ? g
          : undefined;
      },
      60_000,
      'Gateway at the new generation',
    );
    expect(conditionsOf(after.status).find((c) => c.type === 'Accepted')!.lastTransitionTime).toBe(
      accepted.lastTransitionTime,
    );
  });

  it('does not rewrite status that did not change', async () => {
    // Settled: every condition of the Gateway (the deployer's Programmed too) is at its generation and the
    // work queues are empty. Then the Gateway gets an annotation (same spec, same generation): a translation
    // pass reconciles it and queues its status; once that pass ran and the queues are empty again, the
    // Gateway, whose inputs stayed the same, must still have the annotation write's resourceVersion.
    const metric = async (name: string) => {
      const text = await (await fetch(`http://127.0.0.1:${ctl.metricsPort}/metrics`)).text();
      return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    };
    await eventually(
      async () => {
        const g = await read(kc, GW_API, 'Gateway', 'web', ns());
        const conds = conditionsOf(g.status);
        const atGeneration = conds.length >= 2 && conds.every((c) => c.observedGeneration === g.metadata!.generation);
        return atGeneration && (await metric('gw_workqueue_depth')) === 0 ? true : undefined;
      },
      30_000,
      'Gateway status settled',
    );
    const passes = await metric('gw_translate_duration_seconds_count');
    const touched = gateway(ns(), 'web', className, [
      { name: 'http', port: 8080, protocol: 'HTTP' },
      { name: 'admin', port: 9090, protocol: 'HTTP' },
    ]);
    touched.metadata = { ...touched.metadata, annotations: { 'e2e.gw.dev/touched': 'yes' } };
    const applied = await apply(kc, touched);
    await eventually(
      async () =>
        (await metric('gw_translate_duration_seconds_count')) > passes && (await metric('gw_workqueue_depth')) === 0
          ? true
          : undefined,
      30_000,
      'a translation pass after the annotation, its status queue drained',
    );
    const after = await read(kc, GW_API, 'Gateway', 'web', ns());
    expect(after.metadata!.resourceVersion).toBe(applied.metadata!.resourceVersion);
  });

  it('reports a BackendTLSPolicy per Gateway: no valid CA while its ConfigMap is missing, accepted once it appears', async () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'secure', namespace: ns() },
      spec: { ports: [{ name: 'https', port: 443 }] },
    };
    const route = {
      apiVersion: GW_API,
      kind: 'HTTPRoute',
      metadata: { name: 'secure', namespace: ns() },
      spec: { parentRefs: [{ name: 'web' }], rules: [{ backendRefs: [{ name: 'secure', port: 443 }] }] },
    };
    const policy = {
      apiVersion: GW_API,
      kind: 'BackendTLSPolicy',
      metadata: { name: 'secure', namespace: ns() },
      spec: {
        targetRefs: [{ group: '', kind: 'Service', name: 'secure' }],
        validation: {
          caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'secure-ca' }],
          hostname: 'a.example.test',
        },
      },
    };
    for (const o of [svc, route, policy]) await apply(kc, o);
    const reasons = async () => {
      const p = await read(kc, GW_API, 'BackendTLSPolicy', 'secure', ns());
      const ours = (
        (p.status?.ancestors ?? []) as { controllerName: string; ancestorRef: { name: string }; conditions: Cond[] }[]
      ).find((a) => a.controllerName === controllerName);
      return ours && `${ours.ancestorRef.name}: ${ours.conditions.map((c) => `${c.type}=${c.reason}`).join(', ')}`;
    };
    await eventually(
      async () =>
        (await reasons()) === 'web: Accepted=NoValidCACertificate, ResolvedRefs=InvalidCACertificateRef'
          ? true
          : undefined,
      60_000,
      'BackendTLSPolicy without its CA',
    );
    const routeResolved = async () =>
      conditionsOf(
        ((await read(kc, GW_API, 'HTTPRoute', 'secure', ns())).status?.parents as unknown[] | undefined)?.[0],
      ).find((c) => c.type === 'ResolvedRefs')?.reason;
    // The route's status is its own write, which may trail the policy's.
    expect(
      await eventually(
        async () => ((await routeResolved()) === 'InvalidBackendTLS' ? true : undefined),
        30_000,
        'route refs InvalidBackendTLS',
      ),
    ).toBe(true);
    await apply(kc, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'secure-ca', namespace: ns() },
      data: { 'ca.crt': readFileSync(join(repoRoot, 'test/proxy/tls-testdata/ca.crt'), 'utf8') },
    });
    await eventually(
      async () => ((await reasons()) === 'web: Accepted=Accepted, ResolvedRefs=ResolvedRefs' ? true : undefined),
      60_000,
      'BackendTLSPolicy accepted',
    );
    expect(
      await eventually(
        async () => ((await routeResolved()) === 'ResolvedRefs' ? true : undefined),
        30_000,
        'route refs resolved',
      ),
    ).toBe(true);
  });
});

/** A merge patch of the status subresource, as another controller would write its own entry. */
async function kcPatchStatus(
  kc: ReturnType<typeof e2eKubeConfig>,
  obj: Obj,
  status: Record<string, unknown>,
): Promise<void> {
  const client = new KubeClient(kc);
  try {
    await client.request(
      'PATCH',
      `/apis/gateway.networking.k8s.io/v1/namespaces/${obj.metadata!.namespace}/httproutes/${obj.metadata!.name}/status`,
      {
        body: { status },
        contentType: 'application/merge-patch+json',
      },
    );
  } finally {
    client.close();
  }
}
