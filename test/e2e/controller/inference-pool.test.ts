// GwModel custom.backendRef to a real InferencePool (CRD from the extension's Go module) against a real API
// server: the controller with --enable-models --enable-inference-extension watches the pool and its Pods,
// counts the ready ones (readiness is Pod status, written here through the status subresource as a kubelet
// would: this API server runs no kubelet), writes the pool's status.parents beside another controller's,
// and says when the pool is gone.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { KubeClient } from '../../../src/controller/kube-client.js';
import { installGwCrds } from '../support/gw-crds.js';
import { inferencePoolCrdFile } from '../support/inference-extension.js';
import { applyFiles, crdNamesIn, e2eKubeConfig, useNamespace, waitForCrdsEstablished } from '../support/kube.js';
import { eventually, startController, type ControllerProcess } from './support/controller-process.js';
import { apply, conditionsOf, gateway, gatewayClass, read, type Cond, type Obj } from './support/objects.js';

const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-pool-${suffix}`;
const className = `gw-pool-${suffix}`;
const POOL_API = 'inference.networking.k8s.io/v1';

const objects = (ns: string): Obj[] => [
  {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'llm', namespace: ns },
    spec: {
      parentRefs: [{ name: 'web' }],
      rules: [
        {
          name: 'chat',
          matches: [{ path: { type: 'PathPrefix', value: '/v1' } }],
          backendRefs: [{ group: 'gw.dev', kind: 'GwModel', name: '*' }],
        },
      ],
    },
  },
  {
    apiVersion: POOL_API,
    kind: 'InferencePool',
    metadata: { name: 'llama', namespace: ns },
    spec: {
      selector: { matchLabels: { app: 'llama' } },
      targetPorts: [{ number: 8000 }],
      // Required by the v1 CRD; the picker's Service has no endpoints here (FailOpen: the Pods take turns).
      endpointPickerRef: { name: 'llama-epp', port: { number: 9002 }, failureMode: 'FailOpen' },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'llama-epp', namespace: ns },
    spec: { ports: [{ name: 'grpc', port: 9002 }] },
  },
  // No controller-manager creates it here; Pod admission needs it.
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'llama-0', namespace: ns, labels: { app: 'llama' } },
    spec: { containers: [{ name: 'vllm', image: 'vllm/vllm-openai' }] },
  },
  {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwModel',
    metadata: { name: 'llama', namespace: ns },
    spec: {
      parentRefs: [{ kind: 'HTTPRoute', name: 'llm', sectionName: 'chat' }],
      provider: 'Custom',
      custom: {
        backendRef: { group: 'inference.networking.k8s.io', kind: 'InferencePool', name: 'llama' },
        formats: [{ format: 'Completions' }],
      },
    },
  },
];

describe('GwModel backendRef to an InferencePool', () => {
  const ns = useNamespace('ctl-pool');
  const kc = e2eKubeConfig();
  let ctl: ControllerProcess;

  /** The GwModel's ResolvedRefs condition once `ok` holds for it. */
  const resolvedRefs = (ok: (c: Cond) => boolean, what: string): Promise<Cond> =>
    eventually(
      async () => {
        const m = await read(kc, 'gw.dev/v1alpha1', 'GwModel', 'llama', ns());
        const parents = ((m.status as { parents?: { conditions?: unknown }[] } | undefined)?.parents ?? []).map((p) =>
          conditionsOf({ conditions: p.conditions }),
        );
        const c = parents[0]?.find((x) => x.type === 'ResolvedRefs');
        return c && ok(c) ? c : undefined;
      },
      60_000,
      what,
    );

  beforeAll(async () => {
    await installGwCrds(inject('kubeconfig'), kc);
    const crd = inferencePoolCrdFile();
    await applyFiles(inject('kubeconfig'), [crd]);
    await waitForCrdsEstablished(kc, crdNamesIn([crd]));
    ctl = startController({
      kubeconfig: inject('kubeconfig'),
      identity: `pool-${suffix}`,
      controllerName,
      leaderElectionNamespace: ns(),
      extraArgs: ['--enable-models', '--enable-inference-extension'],
    });
    await ctl.ready();
    await apply(kc, gatewayClass(className, controllerName));
    await apply(kc, gateway(ns(), 'web', className));
    for (const o of objects(ns())) await apply(kc, o);
  }, 300_000);

  afterAll(async () => {
    await ctl?.stop();
  });

  it('resolves the pool and counts a Pod once its status says Ready', async () => {
    const none = await resolvedRefs(
      (c) => (c.message ?? '').includes('0 ready endpoints'),
      'pool resolved, no endpoint',
    );
    expect(none).toMatchObject({ status: 'True', reason: 'ResolvedRefs' });
    await new KubeClient(kc).request('PATCH', `/api/v1/namespaces/${ns()}/pods/llama-0/status`, {
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          podIP: '10.244.0.7',
          podIPs: [{ ip: '10.244.0.7' }],
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
        },
      },
    });
    const one = await resolvedRefs((c) => (c.message ?? '').includes('1 ready endpoint'), 'the Ready Pod counted');
    expect(one.message).toContain(`InferencePool ${ns()}/llama has 1 ready endpoint`);
  });

  it("writes the pool's status.parents for its Gateway, keeping another controller's entry", async () => {
    const other = {
      parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: ns(), name: 'elsewhere' },
      controllerName: 'example.net/other-controller',
      conditions: [
        {
          type: 'Accepted',
          status: 'True',
          reason: 'Accepted',
          message: 'theirs',
          lastTransitionTime: new Date().toISOString(),
        },
      ],
    };
    // Another controller writes its entry alone (a merge patch replaces the list): ours must come back beside it.
    await new KubeClient(kc).request(
      'PATCH',
      `/apis/inference.networking.k8s.io/v1/namespaces/${ns()}/inferencepools/llama/status`,
      { contentType: 'application/merge-patch+json', body: { status: { parents: [other] } } },
    );
    const parents = await eventually(
      async () => {
        const pool = await read(kc, POOL_API, 'InferencePool', 'llama', ns());
        const list = (pool.status as { parents?: Obj[] } | undefined)?.parents ?? [];
        const ours = list.find((p) => p.controllerName === controllerName);
        const theirs = list.find((p) => p.controllerName === other.controllerName);
        return ours && theirs ? { ours, theirs } : undefined;
      },
      60_000,
      'our parent entry beside theirs',
    );
    expect(parents.ours.parentRef).toEqual({
      group: 'gateway.networking.k8s.io',
      kind: 'Gateway',
      namespace: ns(),
      name: 'web',
    });
    const conds = conditionsOf({ conditions: parents.ours.conditions });
    expect(conds.find((c) => c.type === 'Accepted')).toMatchObject({ status: 'True', reason: 'Accepted' });
    expect(conds.find((c) => c.type === 'ResolvedRefs')).toMatchObject({ status: 'True', reason: 'ResolvedRefs' });
    expect(conditionsOf({ conditions: parents.theirs.conditions })[0]?.message).toBe('theirs');
  });

  it('says BackendNotFound once the pool is deleted', async () => {
    await new KubeClient(kc).request(
      'DELETE',
      `/apis/inference.networking.k8s.io/v1/namespaces/${ns()}/inferencepools/llama`,
    );
    const gone = await resolvedRefs((c) => c.status === 'False', 'pool gone');
    expect(gone).toMatchObject({ reason: 'BackendNotFound' });
    expect(gone.message).toContain(`InferencePool ${ns()}/llama does not exist`);
  });
});
