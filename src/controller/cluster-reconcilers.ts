// The three concerns of cluster mode, each a reconciler with its own typed request: translation and
// push (every replica: it feeds the xDS server), status (leader only) and the deployer (leader only).
// They share the cluster state below; each hands follow-up work to the others' queues.
import type { Logger } from 'pino';
import type { Condition } from '../translate/status/conditions.js';
import type { TranslateOptions } from '../translate/objects/context.js';
import { stableStringify } from '../translate/objects/read.js';
import type { Store } from '../translate/objects/store.js';
import { objectKey, splitObjectKey, type Kind } from '../translate/objects/types.js';
import type { Clock } from './clock.js';
import { IncrementalTranslation, PendingChanges } from './incremental.js';
import { createSlicer, type Slicer } from './slices.js';
import type { Informer } from './informer.js';
import type { KubeClient } from './kube-client.js';
import type { ConfigTracer } from './config-tracing.js';
import type { NackReports } from './nack-reports.js';
import type { Controller, Reconciler, Result } from './reconciler.js';
import type { ControllerSource } from './snapshot-source.js';
import { withConditions, withRejections } from './status-merge.js';
import type { StatusWriter } from './status-writer.js';

/** Translate what changed since the last pass and publish the snapshots: one request, coalesced. */
export type TranslateRequest = Record<string, never>;
/** Bring the status of one object (`Kind/ns/name`) in line with what the controller wants. */
export interface StatusRequest {
  object: string;
}
/** Render and apply the proxy workload of one Gateway (`ns/name`). */
export interface DeployRequest {
  gateway: string;
}

export interface DeployContext {
  gateway: string;
  store: Store;
  client: KubeClient;
  /** Conditions the deployer wants on the Gateway (replacing translated ones of the same type). */
  setConditions: (conditions: Condition[]) => void;
}

/** What the reconcilers share: the informer-fed store and what translation and the proxies made of it. */
export interface ClusterState {
  log: Logger;
  clock: Clock;
  client: KubeClient;
  store: Store;
  source: ControllerSource;
  informers: Map<Kind, Informer>;
  translation: IncrementalTranslation;
  pending: PendingChanges;
  /** Gateways with a snapshot in the source, so a full translation can withdraw vanished ones. */
  published: Set<string>;
  deployConditions: Map<string, Condition[]>;
  nacks: NackReports;
  synced: boolean;
  leader: boolean;
  /** Translation passes run so far and gateway translations in them (the burst benchmark and tests count them). */
  stats: TranslationStats;
  translateOptions: () => TranslateOptions;
  /** `--gateway-namespaces`: RBAC lets the controller write only there, so it does not try elsewhere. */
  writable: (namespace: string | undefined) => boolean;
  /** `--otlp-traces-url`: each pass that publishes is a trace reaching every proxy's ACK. */
  tracer?: ConfigTracer;
}

export interface TranslationStats {
  passes: number;
  gatewayTranslations: number;
  /** Translations per gateway that still exists. */
  byGateway: Map<string, number>;
}

export interface Queues {
  translate: Controller<TranslateRequest>;
  status: Controller<StatusRequest>;
  deploy?: Controller<DeployRequest>;
}

export function createClusterState(
  base: Pick<
    ClusterState,
    'log' | 'clock' | 'client' | 'store' | 'source' | 'nacks' | 'translateOptions' | 'writable' | 'tracer'
  >,
  leader: boolean,
): ClusterState {
  return {
    ...base,
    informers: new Map(),
    translation: new IncrementalTranslation(base.store),
    pending: new PendingChanges(),
    published: new Set(),
    deployConditions: new Map(),
    synced: false,
    leader,
    stats: { passes: 0, gatewayTranslations: 0, byGateway: new Map() },
  };
}

export function nowText(clock: Clock): string {
  return new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Status and deploy work follows translation, on the leader only. */
export function enqueueLeaderWork(
  s: ClusterState,
  q: Queues,
  statusKeys: Iterable<string>,
  gateways: Iterable<string>,
) {
  if (!s.leader) return;
  for (const object of statusKeys) q.status.enqueue({ object });
  if (q.deploy) for (const gateway of gateways) q.deploy.enqueue({ gateway });
}

/** Every object we may have something to say about, including routes we no longer serve (to remove our entries). */
export function allStatusKeys(s: ClusterState): string[] {
  const keys = new Set(s.translation.state?.statuses.keys() ?? []);
  for (const kind of ['HTTPRoute', 'GRPCRoute', 'GwModel', 'BackendTLSPolicy', 'InferencePool'] as const)
    for (const k of s.informers.get(kind)?.cache.keys() ?? []) keys.add(objectKey(kind, k));
  return [...keys];
}

export function ourGateways(s: ClusterState): string[] {
  return [...(s.translation.state?.gateways.values() ?? [])].filter((t) => t.ours).map((t) => t.gateway);
}

export function translateReconciler(s: ClusterState, q: Queues): Reconciler<TranslateRequest> {
  return {
    name: 'translate',
    key: () => 'translate',
    request: () => ({}),
    reconcile: async (): Promise<Result> => {
      if (!s.synced) return {};
      const changes = s.pending.take();
      const started = s.clock.now();
      const slicer = createSlicer();
      let pass;
      try {
        // Sliced: lease renewal, probes and xDS streams are served between gateways.
        pass = await s.translation.runSliced(s.translateOptions(), changes, slicer);
      } catch (err) {
        // Nothing may be lost: the changes go back, and the retry translates everything afresh.
        s.pending.restore(changes);
        throw err;
      }
      s.stats.passes++;
      s.stats.gatewayTranslations += pass.gateways.length;
      for (const g of pass.gateways) {
        if (s.translation.state?.gateways.has(g)) s.stats.byGateway.set(g, (s.stats.byGateway.get(g) ?? 0) + 1);
        else s.stats.byGateway.delete(g);
      }
      s.log.debug(
        { changes: changes.length, gateways: pass.gateways.length, full: pass.full, ms: s.clock.now() - started },
        'translation pass',
      );
      const gateways = pass.full ? [...new Set([...s.published, ...pass.gateways])] : pass.gateways;
      const attributes = { 'gw.mode': 'cluster', 'gw.changes': changes.length, 'gw.gateways': gateways.length };
      await (s.tracer ? s.tracer.pass(attributes, () => publish(s, gateways, slicer)) : publish(s, gateways, slicer));
      enqueueLeaderWork(s, q, pass.full ? allStatusKeys(s) : pass.statuses, gateways.filter(isOurs(s)));
      return {};
    },
  };
}

const isOurs = (s: ClusterState) => (gateway: string) => s.translation.state?.gateways.get(gateway)?.ours === true;

/** Encoding a large snapshot takes tens of ms: one gateway per slice at most. */
async function publish(s: ClusterState, gateways: readonly string[], slicer: Slicer): Promise<void> {
  for (const gw of gateways) {
    await slicer.maybeYield();
    const t = s.translation.state?.gateways.get(gw);
    s.source.publish(gw, t?.ours ? t.snapshot : undefined);
    if (!t?.ours) {
      s.published.delete(gw);
      continue;
    }
    s.published.add(gw);
    s.log.debug(
      { gateway: gw, version: t.snapshot.version, resources: t.snapshot.resources.length },
      'snapshot published',
    );
  }
}

export function statusReconciler(s: ClusterState, writer: StatusWriter): Reconciler<StatusRequest> {
  return {
    name: 'status',
    key: (r) => r.object,
    request: (object) => ({ object }),
    reconcile: async (r) => (s.leader ? writer.reconcile(r.object) : {}),
  };
}

/** The status the writer wants: translated, with the deployer's conditions and proxy rejections merged in. */
export function desiredStatus(s: ClusterState, key: string): Record<string, unknown> | undefined {
  const translated = s.translation.state?.statuses.get(key);
  if (!translated) return undefined;
  const k = splitObjectKey(key);
  const extra = k?.kind === 'Gateway' ? s.deployConditions.get(k.key) : undefined;
  const withDeploy = extra ? withConditions(translated, extra) : translated;
  const rejected = s.nacks.of(key);
  const elsewhere = s.nacks.elsewhere(key);
  return rejected.length || elsewhere.length
    ? withRejections(withDeploy, rejected, nowText(s.clock), elsewhere)
    : withDeploy;
}

export function deployReconciler(
  s: ClusterState,
  q: Queues,
  deploy: (ctx: DeployContext) => Promise<Result>,
): Reconciler<DeployRequest> {
  return {
    name: 'deploy',
    key: (r) => r.gateway,
    request: (gateway) => ({ gateway }),
    reconcile: async ({ gateway }) => {
      if (!s.leader || !isOurs(s)(gateway) || !s.writable(gateway.slice(0, gateway.indexOf('/')))) return {};
      return deploy({
        gateway,
        store: s.store,
        client: s.client,
        setConditions: (conds) => {
          const before = stableStringify(s.deployConditions.get(gateway) ?? []);
          if (conds.length) s.deployConditions.set(gateway, conds);
          else s.deployConditions.delete(gateway);
          if (stableStringify(conds) !== before) q.status.enqueue({ object: `Gateway/${gateway}` });
        },
      });
    },
  };
}
