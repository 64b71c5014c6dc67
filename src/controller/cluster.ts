// `gw controller` against a cluster: informers feed the translator's store (watch events handled in
// slices, src/controller/event-intake.ts); three reconcilers, each with its own typed request and queue
// (src/controller/cluster-reconcilers.ts), translate and push (every replica publishes snapshots for
// xDS; passes debounced by src/controller/translate-trigger.ts), write status and apply proxy
// workloads (the Lease holder).
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { stableStringify } from '../translate/objects/read.js';
import { createStore, getObject, putObject, removeObject, type Store } from '../translate/objects/store.js';
import { KINDS, isClusterScoped, objectKey, type Kind, type KubeObject } from '../translate/objects/types.js';
import { systemClock, type Clock } from './clock.js';
import {
  allStatusKeys,
  createClusterState,
  deployReconciler,
  desiredStatus,
  enqueueLeaderWork,
  nowText,
  ourGateways,
  statusReconciler,
  translateReconciler,
  type ClusterState,
  type DeployContext,
  type Queues,
  type TranslationStats,
} from './cluster-reconcilers.js';
import { EventIntake } from './event-intake.js';
import { Informer, cacheKey, type InformerEvent, type KubeObjectLike } from './informer.js';
import { KubeClient, loadKubeConfig } from './kube-client.js';
import { LeaderElector } from './leader-election.js';
import { NackReports } from './nack-reports.js';
import { startOwnedWatch } from './owned-watch.js';
import type { ControllerMetrics } from './ops-server.js';
import { createReconcileMetrics, instrumentReconcile } from './reconcile-metrics.js';
import { startController as startQueue, type ControllerOptions } from './reconciler.js';
import { ALTERNATIVES, WATCHED } from './resources.js';
import { podFingerprintPart } from '../translate/objects/inference-pool.js';
import { createControllerSource, type ControllerSource } from './snapshot-source.js';
import { StatusWriter } from './status-writer.js';
import { createTranslateTrigger } from './translate-trigger.js';
import type { ConfigTracer } from './config-tracing.js';
import { warmUpValidators } from '../api/validate.js';
import type { Result } from './workers.js';

export type { DeployContext } from './cluster-reconcilers.js';

export interface ClusterControllerOptions {
  /** Kubeconfig path; undefined: $KUBECONFIG, else in-cluster. */
  kubeconfig?: string;
  controllerName: string;
  discoveryNamespaceSelectors?: Record<string, unknown>[];
  /** Namespaces the controller writes to; empty: all. */
  gatewayNamespaces?: string[];
  enableModels?: boolean;
  /** Watch InferencePools and Pods (GwModel custom.backendRef to an InferencePool). */
  enableInferenceExtension?: boolean;
  /** `--gateway-class-parameters-refs`, so the translator sees the GwParameters the deployer uses. */
  classParametersRefs?: Record<string, { name: string; namespace: string }>;
  /** `--istio-auto-enabled`: the built-in class, istio on for its Gateways unless their GwParameters say. */
  istioAutoEnabledClass?: string;
  leaderElect: boolean;
  leaderElectionNamespace: string;
  /** Lease name (default `gw-controller`). */
  leaseName?: string;
  /** Default POD_NAME, else hostname plus a random suffix. */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  resyncMs?: number;
  workers?: number;
  /** Translation time, reconcile failures, queue depth and retries go here (src/controller/reconcile-metrics.ts). */
  metrics?: ControllerMetrics;
  log: Logger;
  clock?: Clock;
  /** Debounce of translation passes (default 100 ms quiet, at most 2 s after a burst's first change). */
  translateDebounce?: { quietMs?: number; maxDelayMs?: number };
  /** Traces translation passes, publishes and proxy ACKs (`--otlp-traces-url`). */
  tracer?: ConfigTracer;
  /** Leader-only hook per Gateway of our class (the deployer); its outcome joins the Gateway's status. */
  deploy?: (ctx: DeployContext) => Promise<Result>;
}

export interface ClusterController {
  readonly source: ControllerSource;
  /** The xDS server's onNack: the rejection becomes a condition on the object the resource came from. */
  reportNack(gateway: string, pod: string, errors: { name: string; message: string }[]): void;
  /** The xDS server's onResolved: the proxy applied (or dropped) what it had rejected. */
  resolveNack(gateway: string, pod: string, names: string[]): void;
  readonly store: Store;
  readonly client: KubeClient;
  isLeader(): boolean;
  /** Translation passes run so far and gateway translations in them. */
  translationStats(): TranslationStats;
  /**
   * Joins leader election (once caches are synced). The caller arms it when the replica can do a
   * leader's work: a replica that fails to start its xDS server must never have held, then released,
   * the lease.
   */
  campaign(): void;
  /** Resolves when every informer has listed once and the first translation is published. */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

export async function startClusterController(o: ClusterControllerOptions): Promise<ClusterController> {
  const s = createState(o);
  o.metrics?.leader.set(s.leader ? 1 : 0);
  // Compiled now, not inside the first watch event of each kind mid-burst.
  warmUpValidators();
  const q = startQueues(s, o);
  const trigger = createTranslateTrigger({
    clock: s.clock,
    fire: () => q.translate.enqueue({}),
    ...o.translateDebounce,
  });
  const kinds = watchedKinds(o);
  const intake = startInformers(s, q, o, kinds, () => trigger.poke());
  // What the deployer owns: a deleted proxy workload is applied again by the leader.
  const owned = o.deploy
    ? startOwnedWatch({
        client: s.client,
        log: o.log,
        clock: s.clock,
        namespaces: o.gatewayNamespaces ?? [],
        onDeleted: (gateway) => enqueueLeaderWork(s, q, [], [gateway]),
      })
    : [];
  const elector = o.leaderElect ? createElector(s, q, o) : undefined;
  const readyPromise = waitReady(s, q, kinds, () => intake.idle());
  let armCampaign!: () => void;
  const armed = new Promise<void>((resolve) => (armCampaign = resolve));
  let stopped = false;
  // A failed sync is reported to whoever awaits ready(); it only means no campaign here.
  Promise.all([readyPromise, armed]).then(
    () => {
      if (!stopped) elector?.start();
    },
    () => undefined,
  );
  return {
    source: s.source,
    store: s.store,
    client: s.client,
    reportNack: (gateway, pod, errors) => {
      for (const object of s.nacks.report(gateway, pod, errors)) q.status.enqueue({ object });
    },
    resolveNack: (gateway, pod, names) => {
      for (const object of s.nacks.resolve(gateway, pod, names)) q.status.enqueue({ object });
    },
    isLeader: () => s.leader,
    translationStats: () => ({ ...s.stats, byGateway: new Map(s.stats.byGateway) }),
    campaign: () => armCampaign(),
    ready: () => readyPromise,
    async stop() {
      stopped = true;
      trigger.stop();
      await elector?.stop();
      s.leader = false;
      o.metrics?.leader.set(0);
      await Promise.all([...s.informers.values(), ...owned].map((i) => i.stop()));
      await Promise.all([q.translate.stop(), q.status.stop(), q.deploy?.stop()]);
      s.client.close();
    },
  };
}

function createState(o: ClusterControllerOptions): ClusterState {
  const clock = o.clock ?? systemClock;
  return createClusterState(
    {
      log: o.log,
      clock,
      client: new KubeClient(loadKubeConfig(o.kubeconfig)),
      store: createStore(),
      source: o.tracer ? o.tracer.source(createControllerSource()) : createControllerSource(),
      nacks: new NackReports(),
      ...(o.tracer ? { tracer: o.tracer } : {}),
      translateOptions: () => ({
        controllerName: o.controllerName,
        now: nowText(clock),
        ...(o.discoveryNamespaceSelectors ? { discoveryNamespaceSelectors: o.discoveryNamespaceSelectors } : {}),
        enableModels: o.enableModels ?? false,
        enableInferenceExtension: o.enableInferenceExtension ?? false,
        ...(o.classParametersRefs ? { classParametersRefs: o.classParametersRefs } : {}),
        ...(o.istioAutoEnabledClass ? { istioAutoEnabledClass: o.istioAutoEnabledClass } : {}),
      }),
      writable: (ns) => !ns || !o.gatewayNamespaces?.length || o.gatewayNamespaces.includes(ns),
    },
    !o.leaderElect,
  );
}

/** One informer per kind; their events are handled in slices and poke the translation trigger. */
function startInformers(
  s: ClusterState,
  q: Queues,
  o: ClusterControllerOptions,
  kinds: readonly Kind[],
  poke: () => void,
): EventIntake<{ kind: Kind; e: InformerEvent }> {
  const fingerprints = new Map<string, string>();
  const intake = new EventIntake<{ kind: Kind; e: InformerEvent }>({
    handle: ({ kind, e }) => {
      onInformerEvent(s, q, fingerprints, kind, e);
      // Per event, not per drained intake: the 2 s cap must hold while events keep coming.
      if (s.synced && s.pending.size > 0) poke();
    },
    log: o.log,
  });
  for (const kind of kinds) {
    const inf = new Informer(s.client, [WATCHED[kind], ...(ALTERNATIVES[kind] ?? [])], {
      log: o.log,
      onEvent: (e) => intake.push({ kind, e }),
      resyncMs: o.resyncMs,
      clock: s.clock,
    });
    s.informers.set(kind, inf);
    inf.start();
  }
  return intake;
}

/** One queue per reconciler; the deploy queue only when there is a deployer. */
function startQueues(s: ClusterState, o: ClusterControllerOptions): Queues {
  const writer = new StatusWriter({
    client: s.client,
    controllerName: o.controllerName,
    log: s.log,
    informers: s.informers,
    desired: (key) => desiredStatus(s, key),
    writable: s.writable,
  });
  const q = {} as Queues;
  const rm =
    o.metrics &&
    createReconcileMetrics(o.metrics, () => q.translate.depth() + q.status.depth() + (q.deploy?.depth() ?? 0));
  const workers = o.workers ?? 4;
  const run: ControllerOptions = {
    clock: s.clock,
    log: s.log,
    workers,
    ...(rm ? { instrument: instrumentReconcile(rm) } : {}),
  };
  // One translation at a time: each pass takes every pending change.
  q.translate = startQueue(translateReconciler(s, q), { ...run, workers: 1 });
  q.status = startQueue(statusReconciler(s, writer), run);
  if (o.deploy) q.deploy = startQueue(deployReconciler(s, q, o.deploy), run);
  return q;
}

/** An informer event becomes a pending change (unless only status or bookkeeping changed) and a translate request. */
function onInformerEvent(
  s: ClusterState,
  q: Queues,
  fingerprints: Map<string, string>,
  kind: Kind,
  e: InformerEvent,
): void {
  const obj = e.obj as unknown as KubeObject;
  const name = isClusterScoped(kind) ? obj.metadata.name : cacheKey(e.obj);
  const key = objectKey(kind, name);
  if (e.type === 'upsert') {
    const fp = fingerprint(kind, e.obj);
    if (fingerprints.get(key) === fp) {
      // A status-only change or a resync: nothing to translate, but the status may need repair.
      enqueueLeaderWork(s, q, [key], kind === 'Gateway' && e.resync ? [name] : []);
      return;
    }
    const previous = getObject(s.store, kind, name);
    putObject(s.store, kind, obj, 'cluster');
    s.pending.record(key, previous);
    fingerprints.set(key, fp);
  } else {
    fingerprints.delete(key);
    s.pending.record(key, removeObject(s.store, kind, name));
  }
}

function createElector(s: ClusterState, q: Queues, o: ClusterControllerOptions): LeaderElector {
  return new LeaderElector({
    client: s.client,
    log: s.log,
    clock: s.clock,
    namespace: o.leaderElectionNamespace,
    name: o.leaseName ?? 'gw-controller',
    identity: o.identity ?? process.env.POD_NAME ?? `${hostname()}_${randomBytes(4).toString('hex')}`,
    leaseDurationMs: o.leaseDurationMs,
    renewDeadlineMs: o.renewDeadlineMs,
    retryPeriodMs: o.retryPeriodMs,
    onStartedLeading: () => {
      s.leader = true;
      o.metrics?.leader.set(1);
      enqueueLeaderWork(s, q, allStatusKeys(s), ourGateways(s));
    },
    onStoppedLeading: () => {
      s.leader = false;
      o.metrics?.leader.set(0);
    },
  });
}

/** Resolves when every required informer has listed once and the first translation is published. */
async function waitReady(
  s: ClusterState,
  q: Queues,
  kinds: readonly Kind[],
  intakeIdle: () => Promise<void>,
): Promise<void> {
  // Required kinds gate readiness; an absent optional CRD (e.g. ListenerSet) must not block it.
  await Promise.all(kinds.filter((k) => !OPTIONAL.has(k)).map((k) => s.informers.get(k)!.waitForSync()));
  // The listed objects are in the store before the first pass.
  await intakeIdle();
  s.synced = true;
  s.log.info(
    { kinds: kinds.length, objects: [...s.informers.values()].reduce((n, i) => n + i.cache.size, 0) },
    'caches synced',
  );
  q.translate.enqueue({});
  await new Promise<void>((resolve) => {
    const check = () => (s.translation.state ? resolve() : s.clock.setTimeout(check, 20));
    check();
  });
  s.source.setReady(true);
}

/** The kinds the options ask for: GwModel with --enable-models, InferencePool and Pod with --enable-inference-extension. */
export function watchedKinds(o: { enableModels?: boolean; enableInferenceExtension?: boolean }): Kind[] {
  return KINDS.filter((k) =>
    k === 'GwModel' ? o.enableModels : INFERENCE_KINDS.has(k) ? o.enableInferenceExtension : true,
  ) as Kind[];
}

const INFERENCE_KINDS: ReadonlySet<Kind> = new Set<Kind>(['InferencePool', 'Pod']);

/** Kinds whose CRDs a cluster may lack; the controller serves without them until they appear. */
const OPTIONAL: ReadonlySet<Kind> = new Set<Kind>([
  'InferencePool',
  'ListenerSet',
  'GRPCRoute',
  'ReferenceGrant',
  'GwModel',
  'BackendTLSPolicy',
]);

/** Everything that can change a translation: the object without status (but a Pod's readiness) and bookkeeping metadata. */
function fingerprint(kind: Kind, obj: KubeObjectLike): string {
  const { status: _s, metadata, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
  return stableStringify({ ...rest, metadata: meta, ...podFingerprintPart(kind, obj) });
}
