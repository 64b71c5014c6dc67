// The controller writes with server-side apply under its own field manager; these are the semantics it assumes.
import { KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { e2eKubeConfig, useNamespace } from './support/kube.js';

describe('server-side apply', () => {
  const namespace = useNamespace('ssa');

  const configMap = (color: string): KubernetesObject & { data: Record<string, string> } => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: namespace() },
    data: { color },
  });

  const apply = (obj: KubernetesObject, manager: string, force = false) =>
    KubernetesObjectApi.makeApiClient(e2eKubeConfig()).patch(
      obj,
      undefined,
      undefined,
      manager,
      force,
      PatchStrategy.ServerSideApply,
    );

  it('reports a conflict when another manager applies a field it does not own, and force takes it over', async () => {
    await apply(configMap('blue'), 'gw-controller');

    await expect(apply(configMap('red'), 'someone-else')).rejects.toMatchObject({
      code: 409,
      body: expect.stringMatching(/conflict with \\"gw-controller\\".*\.data\.color/),
    });

    const forced = (await apply(configMap('red'), 'someone-else', true)) as ReturnType<typeof configMap>;
    expect(forced.data.color).toBe('red');
    const owners = (forced.metadata?.managedFields ?? []).filter((f) =>
      JSON.stringify(f.fieldsV1 ?? {}).includes('f:color'),
    );
    expect(owners.map((f) => f.manager)).toEqual(['someone-else']);
  });
});
