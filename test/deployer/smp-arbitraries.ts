// fast-check generators of base objects and strategic merge patches for the deployer's kinds.
// Small name pools make patches hit existing list items and map keys often. Generated patches avoid
// the few inputs kubectl itself handles non-deterministically or by crashing (see docs/deployer.md).
import fc from 'fast-check';
import type { Json, JsonObject } from '../../src/deployer/json.js';

type Arb<T = Json> = fc.Arbitrary<T>;

const word = fc.constantFrom('a', 'b', 'c', 'd');
const upper = fc.constantFrom('A', 'B', 'C', 'D');
const smallStr = fc.constantFrom('x', 'y', 'z', '1', 'v2');
const port = fc.constantFrom(80, 81, 443, 8080);

/** All keys optional. */
function opt<T extends Record<string, Arb>>(model: T): Arb<JsonObject> {
  return fc.record(model, { requiredKeys: [] }) as unknown as Arb<JsonObject>;
}
const dict: Arb<JsonObject> = fc.dictionary(word, smallStr, { maxKeys: 3 });
const uniqWords = fc.uniqueArray(word, { maxLength: 3 });
function uniqBy(item: Arb<JsonObject>, key: string, min = 0, max = 3): Arb<Json> {
  return fc.uniqueArray(item, { minLength: min, maxLength: max, selector: (v) => v[key] }) as Arb<Json>;
}

// ---- base objects ----
const envVar = fc.record({ name: upper, value: smallStr });
const containerPort = opt({ name: fc.constantFrom('http', 'metrics'), protocol: fc.constant('TCP') }).chain((o) =>
  port.map((p) => ({ ...o, containerPort: p })),
);
const mount = fc.record({ name: word, mountPath: fc.constantFrom('/a', '/b', '/c') });
const baseContainer = opt({
  image: smallStr,
  args: uniqWords,
  env: uniqBy(envVar, 'name'),
  ports: uniqBy(containerPort, 'containerPort'),
  volumeMounts: uniqBy(mount, 'mountPath'),
  resources: fc.record({ limits: dict }),
}).chain((c) => word.map((name) => ({ ...c, name })));
const volume = fc.oneof(
  fc.record({ name: word, emptyDir: fc.constant({}) }),
  fc.record({ name: word, configMap: fc.record({ name: smallStr }) }),
);
const toleration = fc.record({ key: word, operator: fc.constant('Exists') });
const basePodSpec = opt({
  initContainers: uniqBy(baseContainer, 'name'),
  volumes: uniqBy(volume, 'name'),
  tolerations: fc.array(toleration, { maxLength: 2 }),
  imagePullSecrets: uniqBy(fc.record({ name: word }), 'name'),
  nodeSelector: dict,
  hostAliases: uniqBy(fc.record({ ip: fc.constantFrom('10.0.0.1', '10.0.0.2'), hostnames: uniqWords }), 'ip'),
  topologySpreadConstraints: uniqBy(fc.record({ topologyKey: word, maxSkew: fc.constantFrom(1, 2) }), 'topologyKey'),
}).chain((s) => uniqBy(baseContainer, 'name', 1).map((containers) => ({ ...s, containers })));
const baseMeta = opt({ labels: dict, annotations: dict, finalizers: uniqWords }).map((m) => ({ ...m, name: 'w' }));

function workload(kind: 'Deployment' | 'DaemonSet'): Arb<JsonObject> {
  const spec = opt({
    replicas: kind === 'Deployment' ? fc.constantFrom(1, 2) : fc.constant(undefined as unknown as Json),
    strategy:
      kind === 'Deployment'
        ? fc.constant({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } })
        : fc.constant(undefined as unknown as Json),
  }).chain((s) =>
    fc.record({ labels: dict, spec: basePodSpec }).map(({ labels, spec: podSpec }) => ({
      ...JSON.parse(JSON.stringify(s)),
      selector: { matchLabels: { app: 'w' } },
      template: { metadata: { labels }, spec: podSpec },
    })),
  );
  return fc.record({ metadata: baseMeta, spec }).map((o) => ({ apiVersion: 'apps/v1', kind, ...o }) as JsonObject);
}

const baseService = fc
  .record({
    metadata: baseMeta,
    spec: opt({
      selector: dict,
      externalIPs: fc.array(fc.constantFrom('1.1.1.1', '2.2.2.2'), { maxLength: 2 }),
      ports: uniqBy(
        opt({ name: word, targetPort: port, protocol: fc.constant('TCP') }).chain((o) =>
          port.map((p) => ({ ...o, port: p })),
        ),
        'port',
      ),
    }),
  })
  .map((o) => ({ apiVersion: 'v1', kind: 'Service', ...o }) as JsonObject);

const basePdb = fc
  .record({
    metadata: baseMeta,
    spec: opt({ minAvailable: fc.constantFrom(1, 2), selector: fc.record({ matchLabels: dict }) }),
  })
  .map((o) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', ...o }) as JsonObject);

const metric = fc.constantFrom('cpu', 'memory').map((name) => ({
  type: 'Resource',
  resource: { name, target: { type: 'Utilization', averageUtilization: 80 } },
}));
const baseHpa = fc
  .record({
    metadata: baseMeta,
    spec: opt({
      minReplicas: fc.constantFrom(1, 2),
      metrics: fc.array(metric, { maxLength: 2 }),
      behavior: fc.record({ scaleUp: opt({ stabilizationWindowSeconds: fc.constantFrom(0, 60) }) }),
    }).map((s) => ({ ...s, maxReplicas: 5, scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'w' } })),
  })
  .map((o) => ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', ...o }) as JsonObject);

const baseSa = fc.record({ metadata: baseMeta }, { requiredKeys: ['metadata'] }).chain((o) =>
  opt({
    secrets: uniqBy(fc.record({ name: word }), 'name'),
    imagePullSecrets: uniqBy(fc.record({ name: word }), 'name'),
  }).map((extra) => ({ apiVersion: 'v1', kind: 'ServiceAccount', ...o, ...extra }) as JsonObject),
);

// ---- patches ----
const scalarPatch = (v: Arb): Arb => fc.oneof({ weight: 4, arbitrary: v }, { weight: 1, arbitrary: fc.constant(null) });
const mapPatch: Arb = fc.oneof(
  { weight: 20, arbitrary: fc.dictionary(word, scalarPatch(smallStr), { maxKeys: 3 }) },
  { weight: 4, arbitrary: fc.constant({ $patch: 'delete' }) },
  { weight: 4, arbitrary: dict.map((d) => ({ ...d, $patch: 'replace' })) },
  { weight: 4, arbitrary: fc.constant(null) },
  // Malformed: kubectl rejects an unknown directive, and so must we.
  { weight: 1, arbitrary: fc.constantFrom<Json>({ $patch: 'merge' }, { $patch: 'bogus' }) },
);
const primitiveSetPatch: Arb = fc.oneof(
  { weight: 3, arbitrary: fc.array(word, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** A merge-keyed list patch: item patches, maybe `$patch: delete` items and a `$patch: replace` marker. */
function listPatch(item: (key: Json) => Arb<JsonObject>, keys: Arb, mergeKey: string): Arb<Json[]> {
  const entry: Arb<JsonObject> = keys.chain((k) =>
    fc.oneof(
      { weight: 4, arbitrary: item(k).map((v) => ({ ...v, [mergeKey]: k })) },
      { weight: 1, arbitrary: fc.constant<JsonObject>({ [mergeKey]: k, $patch: 'delete' }) },
    ),
  );
  // Now and then a malformed item (no merge key, or a delete without one) that kubectl rejects.
  const malformed = fc.oneof(item(''), fc.constant<JsonObject>({ $patch: 'delete' }));
  return fc
    .tuple(fc.uniqueArray(entry, { maxLength: 3, selector: (v) => v[mergeKey] }), fc.nat(40), malformed)
    .map(([items, r, bad]) =>
      r === 0 ? [...items, { $patch: 'replace' }] : r === 1 ? [...items, bad] : (items as Json[]),
    );
}

/** Adds `$setElementOrder/<field>` listing the patch's items in order, plus other keys at random places. */
function withOrder(field: string, mergeKey: string, keys: readonly Json[], list: Arb<Json[]>): Arb<JsonObject> {
  return fc
    .tuple(list, fc.subarray([...keys]), fc.array(fc.nat(5), { maxLength: 4 }), fc.nat(3))
    .map(([items, extra, at, r]) => {
      const out: JsonObject = { [field]: items };
      if (r !== 0 || items.some((v) => (v as JsonObject).$patch === 'replace')) return out;
      const order: Json[] = items
        .filter((v) => (v as JsonObject).$patch === undefined)
        .map((v) => ({ [mergeKey]: (v as JsonObject)[mergeKey] as Json }));
      for (const [i, k] of extra.entries()) {
        if (order.some((o) => (o as JsonObject)[mergeKey] === k)) continue;
        order.splice((at[i] ?? 0) % (order.length + 1), 0, { [mergeKey]: k });
      }
      out[`$setElementOrder/${field}`] = order;
      return out;
    });
}

const envPatch = (): Arb<JsonObject> => opt({ value: scalarPatch(smallStr) });
/** Names patches use for containers and env variables: the small pools, or those of a rendered proxy. */
interface NamePools {
  containers: readonly string[];
  env: readonly string[];
}
const smallPools: NamePools = { containers: ['a', 'b', 'c', 'd'], env: ['A', 'B', 'C', 'D'] };

const containerPatch = (pools: NamePools): Arb<JsonObject> =>
  fc
    .tuple(
      opt({
        image: scalarPatch(smallStr),
        ports: listPatch(() => opt({ name: scalarPatch(fc.constantFrom('http', 'grpc')) }), port, 'containerPort'),
        volumeMounts: listPatch(
          () => opt({ name: word, readOnly: scalarPatch(fc.boolean()) }),
          fc.constantFrom('/a', '/b', '/c'),
          'mountPath',
        ),
        resources: fc.record({ limits: mapPatch }),
      }),
      fc.oneof(
        fc.constant({}),
        withOrder('env', 'name', pools.env, listPatch(envPatch, fc.constantFrom(...pools.env), 'name')),
        listPatch(envPatch, fc.constantFrom(...pools.env), 'name').map((env) => ({ env })),
      ),
      fc.oneof(
        fc.constant({}),
        scalarPatch(uniqWords).map((args) => ({ args })),
        uniqWords.map((d) => ({ '$deleteFromPrimitiveList/args': d })),
      ),
    )
    .map(([a, b, c]) => ({ ...a, ...b, ...c }));

const volumePatch = (): Arb<JsonObject> =>
  fc.constantFrom<JsonObject>(
    { emptyDir: { medium: 'Memory' } },
    { $retainKeys: ['name', 'configMap'], configMap: { name: 'y' } },
    { configMap: null },
  );

const podSpecPatch = (pools: NamePools): Arb<JsonObject> => {
  const names = fc.constantFrom(...pools.containers);
  const containers = (): Arb<JsonObject> => containerPatch(pools);
  return fc
    .tuple(
      opt({
        initContainers: listPatch(containers, names, 'name'),
        volumes: listPatch(volumePatch, word, 'name'),
        tolerations: scalarPatch(fc.array(toleration, { maxLength: 2 })),
        imagePullSecrets: listPatch(() => fc.constant({}), word, 'name'),
        nodeSelector: mapPatch,
        hostAliases: listPatch(() => opt({ hostnames: uniqWords }), fc.constantFrom('10.0.0.1', '10.0.0.2'), 'ip'),
        topologySpreadConstraints: listPatch(() => opt({ maxSkew: fc.constantFrom(1, 3) }), word, 'topologyKey'),
        serviceAccountName: scalarPatch(smallStr),
      }),
      fc.oneof(
        fc.constant({}),
        withOrder('containers', 'name', pools.containers, listPatch(containers, names, 'name')),
        listPatch(containers, names, 'name').map((list) => ({ containers: list })),
      ),
    )
    .map(([a, b]) => ({ ...a, ...b }));
};

const metaPatch: Arb<JsonObject> = fc
  .tuple(
    opt({ labels: mapPatch, annotations: mapPatch }),
    fc.oneof(
      fc.constant({}),
      primitiveSetPatch.map((finalizers) => ({ finalizers })),
      uniqWords.map((d) => ({ '$deleteFromPrimitiveList/finalizers': d })),
      fc
        .tuple(uniqWords, uniqWords)
        .map(([f, extra]) => ({ finalizers: f, '$setElementOrder/finalizers': [...new Set([...extra, ...f])] })),
    ),
  )
  .map(([a, b]) => ({ ...a, ...b }));

export function workloadPatch(kind: 'Deployment' | 'DaemonSet', pools: NamePools = smallPools): Arb<JsonObject> {
  const strategy =
    kind === 'Deployment'
      ? fc.constantFrom<Json>(
          { $retainKeys: ['type'], type: 'Recreate' },
          { rollingUpdate: { maxSurge: 2 } },
          { $patch: 'replace', type: 'Recreate' },
          { $retainKeys: ['type'], type: 'RollingUpdate', rollingUpdate: { maxSurge: 3 } },
          { $retainKeys: 'type', type: 'Recreate' },
        )
      : fc.constant(undefined as unknown as Json);
  return opt({
    metadata: metaPatch,
    spec: opt({
      replicas: scalarPatch(fc.constantFrom(3, 4)),
      strategy,
      template: opt({ metadata: opt({ labels: mapPatch }), spec: podSpecPatch(pools) }),
    }),
  }).map((p) => JSON.parse(JSON.stringify(p)) as JsonObject);
}

const servicePatch: Arb<JsonObject> = opt({
  metadata: metaPatch,
  spec: opt({
    selector: mapPatch,
    externalIPs: scalarPatch(fc.array(fc.constantFrom('3.3.3.3'), { maxLength: 1 })),
    ports: listPatch(() => opt({ name: scalarPatch(word), targetPort: scalarPatch(port) }), port, 'port'),
    type: scalarPatch(fc.constantFrom('ClusterIP', 'LoadBalancer')),
  }),
});
const pdbPatch: Arb<JsonObject> = opt({
  metadata: metaPatch,
  spec: opt({ minAvailable: scalarPatch(fc.constantFrom(1, 3)), selector: fc.record({ matchLabels: dict }) }),
});
const hpaPatch: Arb<JsonObject> = opt({
  metadata: metaPatch,
  spec: opt({
    maxReplicas: fc.constantFrom(3, 9),
    metrics: scalarPatch(fc.array(metric, { maxLength: 2 })),
    behavior: opt({
      scaleUp: opt({ stabilizationWindowSeconds: scalarPatch(fc.constantFrom(30, 90)) }),
      scaleDown: mapPatch,
    }),
  }),
});
const saPatch: Arb<JsonObject> = opt({
  metadata: metaPatch,
  secrets: listPatch(() => fc.constant({}), word, 'name'),
  imagePullSecrets: scalarPatch(fc.array(fc.record({ name: word }), { maxLength: 2 })),
  automountServiceAccountToken: scalarPatch(fc.boolean()),
});

export interface SmpCase {
  base: JsonObject;
  patch: JsonObject;
}

/** Patches aimed at a rendered proxy Deployment: its container and env names. */
export const proxyPools: NamePools = {
  containers: ['proxy', 'sidecar'],
  env: ['RUST_LOG', 'GW_LOG_LEVEL', 'SESSION_KEY', 'POD_NAME', 'EXTRA'],
};

export const smpCaseArbitraries: Record<string, Arb<SmpCase>> = {
  Deployment: fc.record({ base: workload('Deployment'), patch: workloadPatch('Deployment') }),
  DaemonSet: fc.record({ base: workload('DaemonSet'), patch: workloadPatch('DaemonSet') }),
  Service: fc.record({ base: baseService, patch: servicePatch }),
  PodDisruptionBudget: fc.record({ base: basePdb, patch: pdbPatch }),
  HorizontalPodAutoscaler: fc.record({ base: baseHpa, patch: hpaPatch }),
  ServiceAccount: fc.record({ base: baseSa, patch: saPatch }),
};
