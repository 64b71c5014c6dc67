// `gw controller` against a cluster: informers feed the translator's store, one work queue runs the
// reconcilers (translate, status, deploy), every replica publishes snapshots for xDS, and only the
// Lease holder writes status and applies proxy workloads.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Condition } from '../translate/status/conditions.js';
import type { TranslateOptions } from '../translate/objects/context.js';
import { stableStringify } from '../translate/objects/read.js';
import { applyChange, translateAll, type TranslationState } from '../translate/state.js';
import { createStore, getObject, putObject, removeObject, type Store } from '../translate/objects/store.js';
import {
  KINDS,
  isClusterScoped,
  objectKey,
  splitObjectKey,
  type Kind,
  type KubeObject,
  type StoredObject,
} from '../translate/objects/types.js';
import { systemClock, type Clock } from './clock.js';
import { Informer, cacheKey, type InformerEvent, type KubeObjectLike } from './informer.js';
import { KubeClient, loadKubeConfig } from './kube-client.js';
import { LeaderElector } from './leader-election.js';
import { ALTERNATIVES, WATCHED } from './resources.js';
import { createControllerSource, type ControllerSource } from './snapshot-source.js';
import { withConditions, withRejections, type Rejection } from './status-merge.js';
import { StatusWriter } from './status-writer.js';
import { objectOfResource } from './xds-glue.js';
import { runWorkers, type Result } from './workers.js';
import { WorkQueue } from './workqueue.js';
import type { ControllerMetrics } from './ops-server.js';
import { createReconcileMetrics, instrumentReconcile } from './reconcile-metrics.js';

export interface ClusterControllerOptions {
  /** Kubeconfig path; undefined: $KUBECONFIG, else in-cluster. */
  kubeconfig?: string;
  controllerName: string;
  discoveryNamespaceSelectors?: Record<string, unknown>[];
  /** Namespaces the controller writes to; empty: all. */
  gatewayNamespaces?: string[];
  enableModels?: boolean;
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
  /** Leader-only hook per Gateway of our class (the deployer); its outcome joins the Gateway's status. */
  deploy?: (ctx: DeployContext) => Promise<Result>;
}

export interface DeployContext {
  gateway: string;
  store: Store;
  client: KubeClient;
  /** Conditions the deployer wants on the Gateway (replacing translated ones of the same type). */
  setConditions: (conditions: Condition[]) => void;
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

const TRANSLATE = 'translate';
/** Above this many pending changes a full translation is cheaper than incremental ones. */
const FULL_TRANSLATE_THRESHOLD = 50;

export async function startClusterController(o: ClusterControllerOptions): Promise<ClusterController> {
  const log = o.log;
  const clock = o.clock ?? systemClock;
  const client = new KubeClient(loadKubeConfig(o.kubeconfig));
  const store = createStore();
  const source = createControllerSource();
  const queue = new WorkQueue(clock);
  const fingerprints = new Map<string, string>();
  const pending = new Map<string, StoredObject | undefined>();
  let state: TranslationState | undefined;
  /** Gateways with a snapshot in the source, so a full translation can withdraw vanished ones. */
  const published = new Set<string>();
  let synced = false;
  let leader = !o.leaderElect;
  const deployConditions = new Map<string, Condition[]>();
  /** Object key → `gateway|pod|resource` → what a proxy said when it rejected a resource of that object. */
  const nacks = new Map<string, Map<string, Rejection>>();

  // `--gateway-namespaces`: RBAC lets the controller write only there, so it does not try elsewhere.
  const writable = (ns: string | undefined) => !ns || !o.gatewayNamespaces?.length || o.gatewayNamespaces.includes(ns);
  const kinds = KINDS.filter((k) => k !== 'GwModel' || o.enableModels);
  const informers = new Map<Kind, Informer>();
  const writer = new StatusWriter({
    client,
    controllerName: o.controllerName,
    log,
    informers,
    desired: (key) => {
      const s = state?.statuses.get(key);
      const extra =
        splitObjectKey(key)?.kind === 'Gateway' ? deployConditions.get(splitObjectKey(key)!.key) : undefined;
      const withDeploy = s && extra ? withConditions(s, extra) : s;
      const rejected = nacks.get(key);
      return withDeploy && rejected?.size
        ? withRejections(
            withDeploy,
            [...rejected.values()],
            new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          )
        : withDeploy;
    },
    writable: (ns) => writable(ns),
  });

  const enqueueLeaderWork = (statusKeys: Iterable<string>, gateways: Iterable<string>) => {
    if (!leader) return;
    for (const k of statusKeys) queue.add(`status:${k}`);
    if (o.deploy) for (const g of gateways) queue.add(`deploy:${g}`);
  };

  const allStatusKeys = (): string[] => {
    const keys = new Set(state?.statuses.keys() ?? []);
    // Routes (and BackendTLSPolicies) we no longer serve may still carry our entries: the writer removes them.
    for (const kind of ['HTTPRoute', 'GRPCRoute', 'GwModel', 'BackendTLSPolicy'] as const)
      for (const k of informers.get(kind)?.cache.keys() ?? []) keys.add(objectKey(kind, k));
    return [...keys];
  };
  const ourGateways = () => [...(state?.gateways.values() ?? [])].filter((t) => t.ours).map((t) => t.gateway);

  const onEvent = (kind: Kind, e: InformerEvent) => {
    const obj = e.obj as unknown as KubeObject;
    const key = objectKey(kind, isClusterScoped(kind) ? obj.metadata.name : cacheKey(e.obj));
    if (e.type === 'upsert') {
      const fp = fingerprint(e.obj);
      if (fingerprints.get(key) === fp) {
        // A status-only change or a resync: nothing to translate, but the status may need repair.
        enqueueLeaderWork([key], kind === 'Gateway' && e.resync ? [key.slice('Gateway/'.length)] : []);
        return;
      }
      const previous = getObject(store, kind, key.slice(kind.length + 1));
      putObject(store, kind, obj, 'cluster');
      if (!pending.has(key)) pending.set(key, previous);
      fingerprints.set(key, fp);
    } else {
      fingerprints.delete(key);
      const previous = removeObject(store, kind, key.slice(kind.length + 1));
      if (!pending.has(key)) pending.set(key, previous);
    }
    if (synced) queue.add(TRANSLATE);
  };

  const translate = (): Result => {
    if (!synced) return {};
    const options: TranslateOptions = {
      controllerName: o.controllerName,
      now: new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ...(o.discoveryNamespaceSelectors ? { discoveryNamespaceSelectors: o.discoveryNamespaceSelectors } : {}),
      enableModels: o.enableModels ?? false,
    };
    const changes = [...pending];
    pending.clear();
    try {
      return translateChanges(options, changes);
    } catch (err) {
      // Nothing may be lost: the changes go back, and the retry translates everything afresh.
      for (const [key, previous] of changes) if (!pending.has(key)) pending.set(key, previous);
      state = undefined;
      throw err;
    }
  };

  const translateChanges = (options: TranslateOptions, changes: [string, StoredObject | undefined][]): Result => {
    let gateways: string[];
    let statusKeys: string[];
    if (!state || changes.length > FULL_TRANSLATE_THRESHOLD) {
      state = translateAll(store, options);
      gateways = [...new Set([...published, ...state.gateways.keys()])];
      statusKeys = allStatusKeys();
    } else {
      state.options = options;
      const g = new Set<string>();
      const s = new Set<string>();
      for (const [key, previous] of changes) {
        const r = applyChange(state, store, key, previous);
        r.gateways.forEach((x) => g.add(x));
        r.statuses.forEach((x) => s.add(x));
      }
      gateways = [...g];
      statusKeys = [...s];
    }
    for (const gw of gateways) {
      const t = state.gateways.get(gw);
      source.publish(gw, t?.ours ? t.snapshot : undefined);
      if (t?.ours) published.add(gw);
      else published.delete(gw);
      if (t?.ours)
        log.debug(
          { gateway: gw, version: t.snapshot.version, resources: t.snapshot.resources.length },
          'snapshot published',
        );
    }
    enqueueLeaderWork(
      statusKeys,
      gateways.filter((g) => state?.gateways.get(g)?.ours),
    );
    return {};
  };

  const reconcile = async (key: string): Promise<Result> => {
    if (key === TRANSLATE) return translate();
    if (!leader) return {};
    if (key.startsWith('status:')) return writer.reconcile(key.slice('status:'.length));
    if (key.startsWith('deploy:') && o.deploy) {
      const gateway = key.slice('deploy:'.length);
      if (!state?.gateways.get(gateway)?.ours || !writable(gateway.slice(0, gateway.indexOf('/')))) return {};
      return o.deploy({
        gateway,
        store,
        client,
        setConditions: (conds) => {
          const before = stableStringify(deployConditions.get(gateway) ?? []);
          if (conds.length) deployConditions.set(gateway, conds);
          else deployConditions.delete(gateway);
          if (stableStringify(conds) !== before) queue.add(`status:Gateway/${gateway}`);
        },
      });
    }
    return {};
  };

  for (const kind of kinds) {
    const inf = new Informer(client, [WATCHED[kind], ...(ALTERNATIVES[kind] ?? [])], {
      log,
      onEvent: (e) => onEvent(kind, e),
      resyncMs: o.resyncMs,
      clock,
    });
    informers.set(kind, inf);
    inf.start();
  }
  const rm = o.metrics && createReconcileMetrics(o.metrics, () => queue.len());
  const workersDone = runWorkers(queue, rm ? instrumentReconcile(reconcile, rm) : reconcile, o.workers ?? 4, log);

  const elector = o.leaderElect
    ? new LeaderElector({
        client,
        log,
        clock,
        namespace: o.leaderElectionNamespace,
        name: o.leaseName ?? 'gw-controller',
        identity: o.identity ?? process.env.POD_NAME ?? `${hostname()}_${randomBytes(4).toString('hex')}`,
        leaseDurationMs: o.leaseDurationMs,
        renewDeadlineMs: o.renewDeadlineMs,
        retryPeriodMs: o.retryPeriodMs,
        onStartedLeading: () => {
          leader = true;
          enqueueLeaderWork(allStatusKeys(), ourGateways());
        },
        onStoppedLeading: () => {
          leader = false;
        },
      })
    : undefined;

  const readyPromise = (async () => {
    // Required kinds gate readiness; an absent optional CRD (e.g. ListenerSet) must not block it.
    await Promise.all(kinds.filter((k) => !OPTIONAL.has(k)).map((k) => informers.get(k)!.waitForSync()));
    synced = true;
    log.info(
      { kinds: kinds.length, objects: [...informers.values()].reduce((n, i) => n + i.cache.size, 0) },
      'caches synced',
    );
    queue.add(TRANSLATE);
    await new Promise<void>((resolve) => {
      const check = () => (state ? resolve() : clock.setTimeout(check, 20));
      check();
    });
    source.setReady(true);
  })();
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
    source,
    store,
    client,
    reportNack(gateway, pod, errors) {
      for (const e of errors) {
        const key = objectOfResource(e.name, gateway);
        let m = nacks.get(key);
        if (!m) nacks.set(key, (m = new Map()));
        m.set(`${gateway}|${pod}|${e.name}`, { gateway, message: `proxy ${pod} rejected ${e.name}: ${e.message}` });
        queue.add(`status:${key}`);
      }
    },
    resolveNack(gateway, pod, names) {
      for (const name of names) {
        const key = objectOfResource(name, gateway);
        if (nacks.get(key)?.delete(`${gateway}|${pod}|${name}`)) queue.add(`status:${key}`);
      }
    },
    isLeader: () => leader,
    campaign: () => armCampaign(),
    ready: () => readyPromise,
    async stop() {
      stopped = true;
      await elector?.stop();
      leader = false;
      await Promise.all([...informers.values()].map((i) => i.stop()));
      await queue.shutDown();
      await workersDone;
      client.close();
    },
  };
}

/** Kinds whose CRDs a cluster may lack; the controller serves without them until they appear. */
const OPTIONAL: ReadonlySet<Kind> = new Set<Kind>([
  'ListenerSet',
  'GRPCRoute',
  'ReferenceGrant',
  'GwModel',
  'BackendTLSPolicy',
]);

/** Everything that can change a translation: the object without status and bookkeeping metadata. */
function fingerprint(obj: KubeObjectLike): string {
  const { status: _s, metadata, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
  return stableStringify({ ...rest, metadata: meta });
}

// The CLI's entry point lives next to its flag handling; exported here too, where callers look for it.
export { runClusterController } from './run-cluster.js';
