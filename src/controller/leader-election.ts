// Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: acquire when the lease is
// free or its holder has not renewed within leaseDuration (judged by our own clock from when we last
// saw the record change, so clock skew between replicas does not matter), renew every retryPeriod,
// step down when renewals fail for renewDeadline, and release on shutdown so a successor need not wait.
import type { Logger } from 'pino';
import { sleep, systemClock, type Clock } from './clock.js';
import { isStatus, type KubeClient } from './kube-client.js';
import { errText } from './workers.js';

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  log: Logger;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: LeaseSpec;
}

const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export class LeaderElector {
  private leading = false;
  private observedKey = '';
  private observedAt = 0;
  private lastRenew = 0;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly clock: Clock;
  private readonly durationMs: number;

  constructor(private readonly o: LeaderElectionOptions) {
    this.clock = o.clock ?? systemClock;
    this.durationMs = o.leaseDurationMs ?? 15_000;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops campaigning; a leader releases the lease first. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.leading) {
      await this.release();
      this.setLeading(false);
    }
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.o.namespace)}/leases`;
  }

  private async run(): Promise<void> {
    const retry = this.o.retryPeriodMs ?? 2_000;
    const deadline = this.o.renewDeadlineMs ?? 10_000;
    while (!this.abort.signal.aborted) {
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew();
      } catch (err) {
        this.o.log.info({ lease: `${this.o.namespace}/${this.o.name}`, err: errText(err) }, 'lease update failed');
      }
      if (ok) {
        this.lastRenew = this.clock.now();
        this.setLeading(true);
      } else if (this.leading && this.clock.now() - this.lastRenew >= deadline) {
        this.o.log.warn(
          { lease: `${this.o.namespace}/${this.o.name}` },
          'could not renew the lease within the renew deadline; stepping down',
        );
        this.setLeading(false);
      }
      await sleep(this.clock, retry, this.abort.signal);
    }
  }

  private setLeading(v: boolean): void {
    if (v === this.leading) return;
    this.leading = v;
    this.o.log.info(
      { lease: `${this.o.namespace}/${this.o.name}`, identity: this.o.identity },
      v ? 'became leader' : 'stopped leading',
    );
    if (v) this.o.onStartedLeading();
    else this.o.onStoppedLeading();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const spec: LeaseSpec = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.durationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    let lease: Lease;
    try {
      lease = await this.o.client.request<Lease>('GET', `${this.path}/${this.o.name}`, { timeoutMs: 5_000 });
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      const body: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.o.name, namespace: this.o.namespace },
        spec,
      };
      try {
        await this.o.client.request('POST', this.path, { body, timeoutMs: 5_000 });
      } catch (e) {
        if (isStatus(e, 409)) return false;
        throw e;
      }
      this.observe(spec, now);
      return true;
    }
    const cur = lease.spec ?? {};
    this.observe(cur, now);
    const holder = cur.holderIdentity ?? '';
    const mine = holder === this.o.identity;
    const durationMs = (cur.leaseDurationSeconds ?? Math.ceil(this.durationMs / 1000)) * 1000;
    if (holder && !mine && this.observedAt + durationMs > now) return false;
    const next: LeaseSpec = mine
      ? { ...cur, renewTime: spec.renewTime, leaseDurationSeconds: spec.leaseDurationSeconds }
      : { ...spec, leaseTransitions: (cur.leaseTransitions ?? 0) + 1 };
    try {
      await this.o.client.request('PUT', `${this.path}/${this.o.name}`, {
        body: { ...lease, spec: next },
        timeoutMs: 5_000,
      });
    } catch (err) {
      if (isStatus(err, 409)) return false;
      throw err;
    }
    this.observe(next, now);
    return true;
  }

  private observe(spec: LeaseSpec, now: number): void {
    const key = `${spec.holderIdentity ?? ''}|${spec.renewTime ?? ''}`;
    if (key !== this.observedKey) {
      this.observedKey = key;
      this.observedAt = now;
    }
  }

  private async release(): Promise<void> {
    try {
      const lease = await this.o.client.request<Lease>('GET', `${this.path}/${this.o.name}`, { timeoutMs: 5_000 });
      if (lease.spec?.holderIdentity !== this.o.identity) return;
      const now = microTime(this.clock.now());
      const spec: LeaseSpec = {
        ...lease.spec,
        holderIdentity: '',
        leaseDurationSeconds: 1,
        renewTime: now,
        acquireTime: now,
      };
      await this.o.client.request('PUT', `${this.path}/${this.o.name}`, { body: { ...lease, spec }, timeoutMs: 5_000 });
      this.o.log.info({ lease: `${this.o.namespace}/${this.o.name}` }, 'lease released');
    } catch (err) {
      this.o.log.warn(
        { lease: `${this.o.namespace}/${this.o.name}`, err: errText(err) },
        'could not release the lease; the next leader waits for it to expire',
      );
    }
  }
}
