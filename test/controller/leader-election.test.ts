// Lease semantics with an injected clock; the Lease lives in an in-memory stand-in for the API
// (resourceVersion conflicts included). The real API server is exercised by test/e2e/controller.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { KubeApiError, type KubeClient } from '../../src/controller/kube-client.js';
import { LeaderElector } from '../../src/controller/leader-election.js';
import { FakeClock } from './fake-clock.js';

class LeaseApi {
  lease: { metadata: Record<string, unknown>; spec: Record<string, unknown> } | undefined;
  private rv = 0;
  client(failing: () => boolean): KubeClient {
    const request = async (method: string, _path: string, opts: { body?: unknown } = {}) => {
      if (failing()) throw new Error('connect ECONNREFUSED');
      const body = opts.body as typeof this.lease;
      if (method === 'GET') {
        if (!this.lease) throw new KubeApiError(404, 'NotFound', 'not found');
        return structuredClone(this.lease);
      }
      if (method === 'POST') {
        if (this.lease) throw new KubeApiError(409, 'AlreadyExists', 'exists');
        this.lease = { ...body!, metadata: { ...body!.metadata, resourceVersion: String(++this.rv) } };
        return this.lease;
      }
      if (body!.metadata.resourceVersion !== this.lease!.metadata.resourceVersion)
        throw new KubeApiError(409, 'Conflict', 'conflict');
      this.lease = { ...body!, metadata: { ...body!.metadata, resourceVersion: String(++this.rv) } };
      return this.lease;
    };
    return { request } as unknown as KubeClient;
  }
}

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function elector(api: LeaseApi, clock: FakeClock, identity: string, failing = () => false) {
  const events: string[] = [];
  const e = new LeaderElector({
    client: api.client(failing),
    namespace: 'ns',
    name: 'gw-controller',
    identity,
    log: pino({ level: 'silent' }),
    clock,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    onStartedLeading: () => events.push('started'),
    onStoppedLeading: () => events.push('stopped'),
  });
  return { e, events };
}

async function run(clock: FakeClock, ms: number, step = 500): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    clock.advance(step);
    await flush();
  }
}

describe('LeaderElector', () => {
  it('lets one replica acquire the lease and the other wait', async () => {
    const api = new LeaseApi();
    const clock = new FakeClock();
    const a = elector(api, clock, 'a');
    const b = elector(api, clock, 'b');
    a.e.start();
    await flush();
    b.e.start();
    await run(clock, 20_000);
    expect(a.e.isLeader).toBe(true);
    expect(b.e.isLeader).toBe(false);
    expect(api.lease!.spec.holderIdentity).toBe('a');
  });

  it('steps down after failing to renew for the renew deadline; the other takes over after the lease duration', async () => {
    const api = new LeaseApi();
    const clock = new FakeClock();
    let down = false;
    const a = elector(api, clock, 'a', () => down);
    const b = elector(api, clock, 'b');
    a.e.start();
    await flush();
    b.e.start();
    await run(clock, 4_000);
    down = true;
    await run(clock, 9_000);
    expect(a.events).toEqual(['started']);
    await run(clock, 2_000);
    expect(a.events).toEqual(['started', 'stopped']);
    expect(b.e.isLeader).toBe(false);
    await run(clock, 6_000);
    expect(b.e.isLeader).toBe(true);
    expect(api.lease!.spec.holderIdentity).toBe('b');
    expect(api.lease!.spec.leaseTransitions).toBe(1);
  });

  it('releases the lease on stop so the next replica need not wait for expiry', async () => {
    const api = new LeaseApi();
    const clock = new FakeClock();
    const a = elector(api, clock, 'a');
    a.e.start();
    await run(clock, 1_000);
    const stopped = a.e.stop();
    await run(clock, 1_000);
    await stopped;
    expect(api.lease!.spec.holderIdentity).toBe('');
    const b = elector(api, clock, 'b');
    b.e.start();
    await run(clock, 500);
    expect(b.e.isLeader).toBe(true);
  });
});
