import { ApiextensionsV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { describe, expect, inject, it } from 'vitest';
import { crdNamesIn, crdState, e2eKubeConfig, useNamespace } from './support/kube.js';
import { gwCrdFiles, installGwCrds } from './support/gw-crds.js';

describe('Gw CRDs in crds/', () => {
  const namespace = useNamespace('crds');

  it('every CRD file applies and becomes Established with its names accepted', async () => {
    const kc = e2eKubeConfig();
    const files = gwCrdFiles();
    const states = await installGwCrds(inject('kubeconfig'), kc);
    expect(states.map((s) => s.name).sort()).toEqual(crdNamesIn(files).sort());
    for (const s of states)
      expect(s, `${s.name}: ${s.problems.join('; ')}`).toMatchObject({ established: true, namesAccepted: true });
  });

  it('serves every version of every Gw kind (list in a namespace answers)', async () => {
    const kc = e2eKubeConfig();
    const ext = kc.makeApiClient(ApiextensionsV1Api);
    const objects = KubernetesObjectApi.makeApiClient(kc);
    for (const name of crdNamesIn(gwCrdFiles())) {
      const crd = await ext.readCustomResourceDefinition({ name });
      for (const v of crd.spec.versions.filter((v) => v.served)) {
        const list = await whenStorageReady(() =>
          objects.list(`${crd.spec.group}/${v.name}`, crd.spec.names.kind, namespace()),
        );
        expect(list.items, `${crd.spec.names.kind} ${v.name}`).toEqual([]);
      }
    }
  });
});

/**
 * The API server answers 429 "storage is (re)initializing" for a moment after a CRD is (re)applied,
 * e.g. while the parity suite applies the same CRDs; that is readiness, not a verdict, so wait it out.
 */
async function whenStorageReady<T>(call: () => Promise<T>, deadlineMs = 20_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== 429 || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

describe('Gateway API CRDs from the Go module cache', () => {
  const namespace = useNamespace('gwapi');

  it('are all Established (standard channel, including ListenerSet)', async () => {
    const kc = e2eKubeConfig();
    const names = crdNamesIn(inject('gatewayApiCrdFiles'));
    expect(names).toContain('listenersets.gateway.networking.k8s.io');
    for (const name of names) {
      const s = await crdState(kc, name);
      expect(s, `${name}: ${s.problems.join('; ')}`).toMatchObject({ established: true, namesAccepted: true });
    }
  });

  it('accept a valid Gateway and reject one with listener port 0 naming the field', async () => {
    const objects = KubernetesObjectApi.makeApiClient(e2eKubeConfig());
    const gateway = (port: number) => ({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'web', namespace: namespace() },
      spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', protocol: 'HTTP', port }] },
    });
    await expect(objects.create(gateway(8080), undefined, 'All')).resolves.toMatchObject({ kind: 'Gateway' });
    await expect(objects.create(gateway(0), undefined, 'All')).rejects.toMatchObject({
      code: 422,
      message: expect.stringContaining('spec.listeners[0].port'),
    });
  });
});
