// A proxy's view of the controller process: it subscribes over TLS (the CA bundle the deployer
// published) with a TokenRequest token of its Gateway's ServiceAccount and receives the snapshot; a
// token of another ServiceAccount is refused; a NACK shows up as a condition on the Gateway.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createXdsClient, type XdsClient, type XdsStatus } from '../../../src/xds/client.js';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { eventually, startController, type ControllerProcess } from './support/controller-process.js';
import { apply, gateway, gatewayClass, read, serviceAccountToken, tryRead } from './support/objects.js';

const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-xds-${suffix}`;
const className = `gw-xds-${suffix}`;

describe('xDS from the controller process', () => {
  const ns = useNamespace('ctl-xdss');
  const kc = e2eKubeConfig();
  const dir = mkdtempSync(join(tmpdir(), 'gw-xds-e2e-'));
  const clients: XdsClient[] = [];
  let ctl: ControllerProcess;

  beforeAll(async () => {
    await installGwCrds(inject('kubeconfig'), kc);
    ctl = startController({
      kubeconfig: inject('kubeconfig'),
      identity: `xds-${suffix}`,
      controllerName,
      leaderElectionNamespace: ns(),
    });
    await ctl.ready();
    await apply(kc, gatewayClass(className, controllerName));
    await apply(kc, gateway(ns(), 'edge', className));
    const bundle = await eventually(
      () => tryRead(kc, 'v1', 'ConfigMap', 'gw-xds-ca', ns()),
      60_000,
      'CA bundle ConfigMap',
    );
    writeFileSync(join(dir, 'ca.crt'), (bundle.data as Record<string, string>)['ca.crt']!);
    await eventually(() => tryRead(kc, 'v1', 'ServiceAccount', 'edge', ns()), 60_000, 'proxy ServiceAccount');
  }, 300_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    await ctl?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const tokenFile = async (sa: string): Promise<string> => {
    const file = join(dir, `${sa}.token`);
    writeFileSync(file, await serviceAccountToken(kc, ns(), sa, 'gw-xds'));
    return file;
  };

  const connect = (sa: string, token: string, reject: (name: string) => boolean) => {
    const c = createXdsClient({
      address: `127.0.0.1:${ctl.xdsPort}`,
      gateway: `${ns()}/edge`,
      podName: `${sa}-pod`,
      tokenFile: token,
      caFile: join(dir, 'ca.crt'),
      serverName: 'localhost',
      log: pino({ level: 'silent' }),
      backoff: { initialMs: 200, maxMs: 1_000 },
      apply: (u) => ({
        errors: u.upserts
          .filter((r) => reject(r.name))
          .map((r) => ({ name: r.name, message: 'unsupported in this test proxy' })),
      }),
    });
    clients.push(c);
    return c;
  };

  it('serves the Gateway snapshot to a proxy running as its ServiceAccount, over TLS', async () => {
    const c = connect('edge', await tokenFile('edge'), () => false);
    await eventually(async () => (c.ready ? true : undefined), 60_000, 'proxy ready');
    expect([...c.versions().keys()]).toContain(`listener/${ns()}/edge/http`);
  });

  it('refuses a proxy whose ServiceAccount belongs to no such Gateway', async () => {
    const c = connect('intruder', await tokenFile('intruder'), () => false);
    const status = await new Promise<XdsStatus>((resolve) => c.once('disconnected', (s) => resolve(s)));
    expect(status.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(c.ready).toBe(false);
  });

  it('reports a NACKed resource as a RejectedByProxy condition on its object', async () => {
    const c = connect('edge', join(dir, 'edge.token'), (name) => name.startsWith('listener/'));
    await eventually(async () => (c.connected ? true : undefined), 60_000, 'second proxy connected');
    const cond = await eventually(
      async () => {
        const g = await read(kc, 'gateway.networking.k8s.io/v1', 'Gateway', 'edge', ns());
        return (
          (g.status?.conditions ?? []) as { type: string; status: string; reason: string; message: string }[]
        ).find((x) => x.reason === 'RejectedByProxy');
      },
      60_000,
      'RejectedByProxy condition',
    );
    expect(cond.type).toBe('Programmed');
    expect(cond.message).toMatch(/edge-pod rejected listener\//);
  });

  it('puts a proxy rejection on the route that caused it only, applies the other route, and clears it when fixed', async () => {
    const route = (name: string, hostname: string) => ({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name, namespace: ns() },
      spec: {
        parentRefs: [{ name: 'edge' }],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: `/${name}` } }],
            filters: [{ type: 'RequestRedirect', requestRedirect: { hostname } }],
          },
        ],
      },
    });
    // Fault injection: this proxy refuses any resource whose body redirects to bad.example.
    const held = new Map<string, string>();
    const c = createXdsClient({
      address: `127.0.0.1:${ctl.xdsPort}`,
      gateway: `${ns()}/edge`,
      podName: 'routes-pod',
      tokenFile: join(dir, 'edge.token'),
      caFile: join(dir, 'ca.crt'),
      serverName: 'localhost',
      log: pino({ level: 'silent' }),
      apply: (u) => {
        const errors = [];
        for (const r of u.upserts) {
          const body = Buffer.from(r.body).toString('latin1');
          if (body.includes('bad.example')) errors.push({ name: r.name, message: 'injected fault' });
          else held.set(r.name, body);
        }
        return { errors };
      },
    });
    clients.push(c);
    const bodyOf = (name: string) => [...held].find(([k]) => k.startsWith(`route/HTTPRoute/${ns()}/${name}/`))?.[1];
    const rejection = async (name: string) => {
      const r = await read(kc, 'gateway.networking.k8s.io/v1', 'HTTPRoute', name, ns());
      const parents = ((r.status?.parents ?? []) as { conditions?: { reason: string; message: string }[] }[]).filter(
        (p) => p.conditions,
      );
      return {
        seen: parents.length > 0,
        cond: parents.flatMap((p) => p.conditions!).find((x) => x.reason === 'RejectedByProxy'),
      };
    };
    await apply(kc, route('good', 'g1.example'));
    await apply(kc, route('bad', 'ok.example'));
    await eventually(
      async () => (bodyOf('good')?.includes('g1.example') && bodyOf('bad') ? true : undefined),
      60_000,
      'routes held',
    );

    await apply(kc, route('good', 'g2.example'));
    await apply(kc, route('bad', 'bad.example'));
    const cond = await eventually(async () => (await rejection('bad')).cond, 60_000, 'RejectedByProxy on bad');
    expect(cond.message).toMatch(/routes-pod rejected route\/HTTPRoute\/.*\/bad\/.*injected fault/);
    expect(bodyOf('good')).toContain('g2.example');
    expect(bodyOf('bad')).toContain('ok.example');
    const good = await rejection('good');
    expect(good.seen).toBe(true);
    expect(good.cond).toBeUndefined();

    await apply(kc, route('bad', 'fixed.example'));
    await eventually(
      async () => (bodyOf('bad')?.includes('fixed.example') ? true : undefined),
      60_000,
      'fixed route held',
    );
    await eventually(
      async () => ((await rejection('bad')).cond ? undefined : true),
      60_000,
      'RejectedByProxy cleared on bad',
    );
  });
});
