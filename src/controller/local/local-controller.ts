// Local mode: the same translation as in a cluster, fed from a folder of YAML files instead of
// informers. Watches the folder, applies each file change as object changes (so only affected
// gateways are translated again), writes one status file per object and logs what happened.
import type { Logger } from 'pino';
import { formatProblem, type Problem } from '../../problem.js';
import { keepTransitionTimes } from '../../translate/status/conditions.js';
import type { TranslateOptions } from '../../translate/objects/context.js';
import type { BuiltSnapshot as IrSnapshot } from '../../translate/built-ir.js';
import { stableStringify } from '../../translate/objects/read.js';
import { snapshots } from '../../translate/state.js';
import { createStore, getObject, putObject, removeObject, type Store } from '../../translate/objects/store.js';
import {
  displayName,
  isClusterScoped,
  nameKey,
  objectKey,
  splitObjectKey,
  type Kind,
  type KubeObject,
} from '../../translate/objects/types.js';
import { IncrementalTranslation, type Change } from '../incremental.js';
import { readFolder } from './files.js';
import { watchFolder, type FolderWatch, type FolderWatchOptions } from './folder-watch.js';
import { removeStatusFile, renderStatusFile, writeStatusFile } from './status-files.js';

export interface LocalControllerOptions {
  manifests: string;
  statusDir?: string;
  translate: Omit<TranslateOptions, 'now'>;
  logger: Logger;
  clock?: () => Date;
  debounceMs?: number;
  /** How the folder is watched (folder-watch.ts): the poll's interval, or poll only. */
  watch?: FolderWatchOptions;
  /** The GatewayClass the chart would install; added when the folder does not define it. */
  builtinClass?: { name: string; controllerName: string };
  /** Called after every (re)translation with the current snapshots: the seam the xDS server uses. */
  onSnapshots?: (snapshots: Map<string, IrSnapshot>) => void;
}

export interface ReloadSummary {
  changedObjects: string[];
  gateways: string[];
  statusFilesWritten: number;
  problems: Problem[];
}

/** The part of a status condition the log reads. */
interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

interface Desired {
  kind: Kind;
  obj: KubeObject;
  source: string;
  fingerprint: string;
}

export class LocalController {
  readonly store: Store = createStore();
  private readonly translation = new IncrementalTranslation(this.store);
  private fingerprints = new Map<string, string>();
  private written = new Map<string, unknown>();
  private watcher: FolderWatch | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: LocalControllerOptions) {}

  get snapshots(): Map<string, IrSnapshot> {
    const state = this.translation.state;
    return state ? snapshots(state) : new Map();
  }

  get statuses(): ReadonlyMap<string, unknown> {
    return this.written;
  }

  /** Reads the folder, applies differences to the store, re-translates what they affect, writes statuses. */
  reload(): ReloadSummary {
    const log = this.opts.logger;
    const now = (this.opts.clock ?? (() => new Date()))()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    const { desired, problems } = this.desired();
    const changed: Change[] = [];
    for (const [key, d] of desired) {
      if (this.fingerprints.get(key) === d.fingerprint) continue;
      const k = splitObjectKey(key);
      const previous = k && getObject(this.store, k.kind, k.key);
      problems.push(...putObject(this.store, d.kind, d.obj, d.source).problems);
      this.fingerprints.set(key, d.fingerprint);
      changed.push({ key, previous });
    }
    for (const key of [...this.fingerprints.keys()]) {
      if (desired.has(key)) continue;
      const k = splitObjectKey(key);
      const previous = k && removeObject(this.store, k.kind, k.key);
      this.fingerprints.delete(key);
      changed.push({ key, previous });
    }
    const pass = this.translation.run({ ...this.opts.translate, now }, changed);
    const gateways = [...pass.gateways].sort();
    // A full pass also revisits statuses written before: their objects may be gone.
    const dirty = pass.full ? [...new Set([...pass.statuses, ...this.written.keys()])] : pass.statuses;
    for (const p of problems) log.warn({ source: p.source, object: p.object, path: p.path }, formatProblem(p));
    const statusFilesWritten = this.writeStatuses(dirty.sort());
    // References that do not resolve (a missing Secret, Service or key) are problems of the folder too.
    const unresolved = this.unresolvedRefs();
    const fresh = new Set(dirty);
    for (const p of unresolved)
      if (p.object && fresh.has(p.key))
        log.warn({ source: p.source, object: p.object, path: p.path }, formatProblem(p));
    problems.push(...unresolved.map(({ key: _key, ...p }) => p));
    for (const gw of gateways) {
      const t = this.translation.state?.gateways.get(gw);
      if (t?.ours)
        log.info(
          { gateway: gw, version: t.snapshot.version, resources: t.snapshot.resources.length },
          'snapshot built',
        );
    }
    this.opts.onSnapshots?.(this.snapshots);
    return { changedObjects: changed.map((c) => c.key).sort(), gateways, statusFilesWritten, problems };
  }

  private desired(): { desired: Map<string, Desired>; problems: Problem[] } {
    const { files, problems } = readFolder(this.opts.manifests);
    const desired = new Map<string, Desired>();
    for (const [source, objects] of files) {
      for (const { kind, obj } of objects) {
        const ns = isClusterScoped(kind) ? undefined : (obj.metadata.namespace ?? 'default');
        const key = objectKey(kind, nameKey(ns, obj.metadata.name));
        const dup = desired.get(key);
        if (dup)
          problems.push({
            source,
            object: `${kind} ${nameKey(ns, obj.metadata.name)}`,
            path: '',
            message: `is also defined in ${dup.source}; this later definition is used`,
          });
        desired.set(key, { kind, obj, source, fingerprint: `${source}|${stableStringify(obj)}` });
      }
    }
    const bc = this.opts.builtinClass;
    if (bc && !desired.has(objectKey('GatewayClass', bc.name))) {
      const obj: KubeObject = {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'GatewayClass',
        metadata: { name: bc.name },
        spec: { controllerName: bc.controllerName },
      };
      desired.set(objectKey('GatewayClass', bc.name), {
        kind: 'GatewayClass',
        obj,
        source: 'built-in',
        fingerprint: `built-in|${stableStringify(obj)}`,
      });
    }
    return { desired, problems };
  }

  /** Every written status's `ResolvedRefs=False` condition (its own, or a route parent's), as a problem. */
  private unresolvedRefs(): (Problem & { key: string })[] {
    const out: (Problem & { key: string })[] = [];
    for (const [key, status] of this.written) {
      const k = splitObjectKey(key);
      const entry = k && getObject(this.store, k.kind, k.key);
      if (!k || !entry) continue;
      const s = status as { conditions?: Condition[]; parents?: { conditions?: Condition[] }[] } | undefined;
      const all = [...(s?.conditions ?? []), ...(s?.parents ?? []).flatMap((p) => p.conditions ?? [])];
      const messages = new Set(
        all.flatMap((c) => (c.type === 'ResolvedRefs' && c.status === 'False' ? [c.message ?? c.reason ?? ''] : [])),
      );
      for (const message of messages)
        out.push({
          key,
          source: entry.source,
          object: displayName(k.kind, k.key),
          path: 'status.ResolvedRefs',
          message,
        });
    }
    return out;
  }

  private writeStatuses(keys: string[]): number {
    const state = this.translation.state;
    if (!state) return 0;
    let n = 0;
    for (const key of keys) {
      const status = state.statuses.get(key);
      const k = splitObjectKey(key);
      const entry = k && getObject(this.store, k.kind, k.key);
      if (status === undefined || !entry) {
        if (this.written.delete(key) && this.opts.statusDir) removeStatusFile(this.opts.statusDir, key);
        continue;
      }
      const kept = keepTransitionTimes(this.written.get(key), status);
      this.written.set(key, kept);
      if (this.opts.statusDir && writeStatusFile(this.opts.statusDir, key, renderStatusFile(entry, kept))) {
        n++;
        this.opts.logger.debug({ object: key }, 'status written');
      }
    }
    return n;
  }

  /** Initial load, then watch the folder until stop(). */
  start(): ReloadSummary {
    const summary = this.safeReload() ?? { changedObjects: [], gateways: [], statusFilesWritten: 0, problems: [] };
    this.watcher = watchFolder(
      this.opts.manifests,
      () => {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.safeReload(), this.opts.debounceMs ?? 100);
      },
      this.opts.watch,
    );
    return summary;
  }

  private safeReload(): ReloadSummary | undefined {
    try {
      const s = this.reload();
      this.opts.logger.info(
        {
          changed: s.changedObjects.length,
          gateways: s.gateways.length,
          statusFiles: s.statusFilesWritten,
          problems: s.problems.length,
        },
        'manifests applied',
      );
      return s;
    } catch (err) {
      // A bad folder state must never stop the controller; the next change retries.
      this.opts.logger.error({ err }, 'applying manifests failed');
      return undefined;
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }
}
