// A SnapshotSource held in memory: what local mode, tests and the benchmark feed the server with.
// The controller implements SnapshotSource over its translator output the same way.
import type { SnapshotSource } from './server.js';
import type { XdsResource } from './snapshot.js';

export interface MemorySource extends SnapshotSource {
  /** Replaces a gateway's whole snapshot. */
  set(gateway: string, resources: ReadonlyMap<string, XdsResource> | Record<string, XdsResource>): void;
  delete(gateway: string): void;
  setReady(ready: boolean): void;
}

export function createMemorySource(opts: { ready?: boolean } = {}): MemorySource {
  let ready = opts.ready ?? true;
  const snapshots = new Map<string, ReadonlyMap<string, XdsResource>>();
  const listeners = new Set<(gateways: ReadonlySet<string>) => void>();
  const notify = (gateway: string) => {
    const changed = new Set([gateway]);
    for (const l of listeners) l(changed);
  };
  return {
    ready: () => ready,
    get: (gateway) => snapshots.get(gateway),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(gateway, resources) {
      snapshots.set(gateway, resources instanceof Map ? new Map(resources) : new Map(Object.entries(resources)));
      notify(gateway);
    },
    delete(gateway) {
      snapshots.delete(gateway);
      notify(gateway);
    },
    setReady(r) {
      ready = r;
    },
  };
}
