// Two releases in one cluster, as the chart runs them (--release-name, --service-name): each controller
// keeps its own xDS CA (Secret and the ConfigMap in a Gateway namespace both hold), its own Lease,
// renders proxies that dial its own Service, and a proxy of each connects over TLS to the name in
// that Service's certificate, trusting its own release's bundle.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createXdsClient, type XdsClient } from '../../../src/xds/client.js';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { eventually, startController, type ControllerProcess } from './support/controller-process.js';
import { apply, gateway, gatewayClass, read, serviceAccountToken, tryRead } from './support/objects.js';

const suffix = randomBytes(3).toString('hex');
const releases = ['alpha', 'beta'] as const;

describe('two controller releases in one cluster', () => {
  const ns = useNamespace('ctl-rel');
  const kc = e2eKubeConfig();
  const dir = mkdtempSync(join(tmpdir(), 'gw-releases-e2e-'));
  const ctl = new Map<string, ControllerProcess>();
  const clients: XdsClient[] = [];

  beforeAll(async () => {
    await installGwCrds(inject('kubeconfig'), kc);
    for (const r of releases) {
      const controllerName = `gw.dev/e2e-${r}-${suffix}`;
      const c = startController({
        kubeconfig: inject('kubeconfig'),
        identity: `${r}-${suffix}`,
        controllerName,
        leaderElectionNamespace: ns(),
        extraArgs: ['--release-name', `${r}-${suffix}`, '--service-name', `${r}-gw`],
      });
      ctl.set(r, c);
      await apply(kc, gatewayClass(`gw-${r}-${suffix}`, controllerName));
      await apply(kc, gateway(ns(), r, `gw-${r}-${suffix}`));
    }
    await Promise.all([...ctl.values()].map((c) => c.ready()));
  }, 300_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    await Promise.all([...ctl.values()].map((c) => c.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const caOf = async (r: string) => {
    const name = `${r}-${suffix}-xds-ca`;
    const cm = await eventually(() => tryRead(kc, 'v1', 'ConfigMap', name, ns()), 60_000, `ConfigMap ${name}`);
    const secret = await read(kc, 'v1', 'Secret', name, ns());
    return {
      bundle: (cm.data as Record<string, string>)['ca.crt']!,
      secret: Buffer.from((secret.data as Record<string, string>)['ca.crt']!, 'base64').toString('utf8'),
    };
  };

  it('keeps one CA per release in the shared namespace, each matching its own Secret', async () => {
    const alpha = await caOf('alpha');
    const beta = await caOf('beta');
    expect(alpha.bundle).toBe(alpha.secret);
    expect(beta.bundle).toBe(beta.secret);
    expect(alpha.bundle).not.toBe(beta.bundle);
    expect(await tryRead(kc, 'v1', 'ConfigMap', 'gw-xds-ca', ns())).toBeUndefined();
  });

  it('elects a leader per release in its own Lease', async () => {
    for (const r of releases) {
      const holder = await eventually(
        async () => {
          const lease = await tryRead(kc, 'coordination.k8s.io/v1', 'Lease', `${r}-${suffix}-controller`, ns());
          return lease?.spec?.holderIdentity as string | undefined;
        },
        60_000,
        `Lease of ${r}`,
      );
      expect(holder).toBe(`${r}-${suffix}`);
    }
  });

  it('renders proxies that dial their own release Service, and they connect to the name it certifies', async () => {
    for (const r of releases) {
      const dep = await eventually(() => tryRead(kc, 'apps/v1', 'Deployment', r, ns()), 60_000, `Deployment ${r}`);
      expect(JSON.stringify(dep.spec)).toContain(`${r}-gw.${ns()}.svc:`);
      const { bundle } = await caOf(r);
      writeFileSync(join(dir, `${r}.crt`), bundle);
      writeFileSync(join(dir, `${r}.token`), await serviceAccountToken(kc, ns(), r, 'gw-xds'));
      const client = createXdsClient({
        address: `127.0.0.1:${ctl.get(r)!.xdsPort}`,
        gateway: `${ns()}/${r}`,
        podName: `${r}-pod`,
        tokenFile: join(dir, `${r}.token`),
        caFile: join(dir, `${r}.crt`),
        serverName: `${r}-gw.${ns()}.svc`,
        log: pino({ level: 'silent' }),
        backoff: { initialMs: 200, maxMs: 1_000 },
        apply: () => ({ errors: [] }),
      });
      clients.push(client);
      await eventually(async () => (client.ready ? true : undefined), 60_000, `proxy of ${r} ready`);
      expect([...client.versions().keys()]).toContain(`listener/${ns()}/${r}/http`);
    }
  });
});
