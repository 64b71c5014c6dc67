// A resilient list+watch cache of one kind. Lists (paged), then watches from the list's
// resourceVersion; a watch that ends is resumed from the last seen resourceVersion, one that fails is
// restarted with backoff, and 410 Gone (history compacted) relists and reports only real differences.
// A kind the server does not serve (CRD absent) is logged and retried without touching other kinds.
import type { Logger } from 'pino';
import { backoff, sleep, systemClock, type Clock } from './clock.js';
import { isStatus, type KubeClient, type WatchEvent } from './kube-client.js';
import { apiVersionOf, resourcePath, type Resource } from './resources.js';
import { errText } from './workers.js';

export interface KubeObjectLike {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    generation?: number;
    [k: string]: unknown;
  };
  [field: string]: unknown;
}

export type InformerEvent =
  { type: 'upsert'; obj: KubeObjectLike; resync: boolean } | { type: 'delete'; obj: KubeObjectLike };

export interface InformerOptions {
  log: Logger;
  onEvent: (e: InformerEvent) => void;
  /** Every cached object is reported again this often (default 10 minutes; 0 = never). */
  resyncMs?: number;
  clock?: Clock;
  /** Backoff of watch restarts: base and cap (default 200 ms and 30 s). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  pageSize?: number;
  /** Only this namespace (default: all). */
  namespace?: string;
  /** Only objects with these labels, e.g. what the deployer applied (default: all). */
  labelSelector?: string;
}

export function cacheKey(obj: KubeObjectLike): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
}

class GoneError extends Error {}

export class Informer {
  readonly cache = new Map<string, KubeObjectLike>();
  private rv: string | undefined;
  private synced = false;
  private syncedWaiters: (() => void)[] = [];
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private resyncTimer: unknown;
  private readonly clock: Clock;

  private candidate = 0;

  /** `resources`: where the kind may be served, tried in turn while the server answers 404. */
  constructor(
    private readonly client: KubeClient,
    private readonly resources: readonly Resource[],
    private readonly opts: InformerOptions,
  ) {
    this.clock = opts.clock ?? systemClock;
  }

  /** The resource currently listed and watched. */
  get resource(): Resource {
    return this.resources[this.candidate % this.resources.length]!;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list has been delivered. */
  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((resolve) => this.syncedWaiters.push(resolve));
  }

  start(): void {
    this.loop ??= this.run();
    this.scheduleResync();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.clock.clearTimeout(this.resyncTimer);
    await this.loop;
  }

  private get log(): Logger {
    return this.opts.log;
  }

  private async run(): Promise<void> {
    let attempt = 0;
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        if (this.rv === undefined) await this.list();
        await this.watchOnce();
        attempt = 0;
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof GoneError || isStatus(err, 410)) {
          this.log.info({ kind: this.resource.kind }, 'watch history expired (410 Gone); relisting');
          this.rv = undefined;
          continue;
        }
        const notServed = isStatus(err, 404);
        if (notServed) this.candidate++;
        const delay = backoff(attempt++, this.opts.backoffBaseMs ?? 200, this.opts.backoffMaxMs ?? 30_000);
        this.log[notServed ? 'warn' : 'info'](
          { kind: this.resource.kind, err: errText(err), retryInMs: delay },
          notServed
            ? 'kind is not served by the API server (CRD not installed?); retrying'
            : 'list/watch failed; retrying',
        );
        await sleep(this.clock, delay, signal);
      }
    }
  }

  private async list(): Promise<void> {
    const path = resourcePath(this.resource, this.opts.namespace);
    const seen = new Map<string, KubeObjectLike>();
    let cont: string | undefined;
    let rv = '';
    do {
      const page = await this.client.request<{
        metadata: { resourceVersion: string; continue?: string };
        items: KubeObjectLike[];
      }>('GET', path, {
        query: { limit: this.opts.pageSize ?? 500, continue: cont, labelSelector: this.opts.labelSelector },
        signal: this.abort.signal,
        timeoutMs: 60_000,
      });
      for (const item of page.items) seen.set(cacheKey(item), this.normalize(item));
      cont = page.metadata.continue || undefined;
      rv = page.metadata.resourceVersion;
    } while (cont);
    // Replace the cache and report only what changed, so a relist after 410 costs little downstream.
    for (const [key, old] of this.cache) if (!seen.has(key)) this.remove(key, old);
    for (const [key, obj] of seen) {
      const old = this.cache.get(key);
      if (!old || old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.upsert(key, obj, false);
    }
    this.rv = rv;
    if (!this.synced) {
      this.synced = true;
      this.log.debug({ kind: this.resource.kind, objects: this.cache.size }, 'cache synced');
      for (const w of this.syncedWaiters.splice(0)) w();
    }
  }

  private async watchOnce(): Promise<void> {
    // The server ends a watch after timeoutSeconds; jitter spreads reconnects of many kinds.
    const timeoutSeconds = 240 + Math.floor(Math.random() * 120);
    await this.client.watch(
      resourcePath(this.resource, this.opts.namespace),
      { resourceVersion: this.rv, allowWatchBookmarks: true, timeoutSeconds, labelSelector: this.opts.labelSelector },
      (e) => this.handle(e),
      this.abort.signal,
      (timeoutSeconds + 30) * 1000,
    );
  }

  private handle(e: WatchEvent): void {
    if (e.type === 'ERROR') {
      const code = Number(e.object.code);
      if (code === 410) throw new GoneError('410 Gone');
      throw new Error(`watch error ${code}: ${String(e.object.message ?? '')}`);
    }
    const obj = this.normalize(e.object as unknown as KubeObjectLike);
    if (obj.metadata.resourceVersion) this.rv = obj.metadata.resourceVersion;
    if (e.type === 'BOOKMARK') return;
    const key = cacheKey(obj);
    if (e.type === 'DELETED') {
      const old = this.cache.get(key);
      if (old) this.remove(key, obj);
    } else this.upsert(key, obj, false);
  }

  private upsert(key: string, obj: KubeObjectLike, resync: boolean): void {
    this.cache.set(key, obj);
    this.deliver({ type: 'upsert', obj, resync });
  }

  private remove(key: string, obj: KubeObjectLike): void {
    this.cache.delete(key);
    this.deliver({ type: 'delete', obj });
  }

  private deliver(e: InformerEvent): void {
    try {
      this.opts.onEvent(e);
    } catch (err) {
      // A handler bug must not stop the cache from following the server.
      this.log.error(
        { kind: this.resource.kind, object: cacheKey(e.obj), err: errText(err) },
        'informer event handler failed',
      );
    }
  }

  /** Lists omit kind and apiVersion on items, and managedFields only cost memory here. */
  private normalize(obj: KubeObjectLike): KubeObjectLike {
    const { managedFields: _drop, ...metadata } = obj.metadata;
    return {
      ...obj,
      apiVersion: apiVersionOf(this.resource),
      kind: this.resource.kind,
      metadata: metadata as KubeObjectLike['metadata'],
    };
  }

  private scheduleResync(): void {
    const every = this.opts.resyncMs ?? 600_000;
    if (every <= 0 || this.abort.signal.aborted) return;
    this.resyncTimer = this.clock.setTimeout(() => {
      if (this.synced) for (const [, obj] of this.cache) this.deliver({ type: 'upsert', obj, resync: true });
      this.scheduleResync();
    }, every);
  }
}
