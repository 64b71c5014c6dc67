// The server's connection state: the subscribed proxies per gateway, each gateway's versioned
// snapshot (built once per change, shared by its proxies), the debounced push on a source change,
// and the ACK/NACK callbacks. Streams come and go through attach/detach (src/xds/stream.ts).
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { ProxyConnection, type ReplyOutcome } from './connection.js';
import { createDebouncer } from './debounce.js';
import type { XdsMetrics } from './metrics.js';
import type { ResourceRefusal } from './protocol.js';
import { linkSnapshots, versionSnapshot, type VersionedSnapshot, type XdsResource } from './snapshot.js';
import type { XdsCall } from './stream.js';
import type { BackoffOptions } from './backoff.js';

/** The part of the server's options the registry reads. */
export interface RegistryOptions {
  source: {
    get(gateway: string): ReadonlyMap<string, XdsResource> | undefined;
    subscribe(listener: (gateways: ReadonlySet<string>) => void): () => void;
  };
  onNack?: (gateway: string, pod: string, errors: ResourceRefusal[]) => void;
  onAck?: (gateway: string, pod: string, systemVersion: string) => void;
  onResolved?: (gateway: string, pod: string, names: string[]) => void;
  debounceMs?: number;
  maxDelayMs?: number;
  resendBackoff?: BackoffOptions;
}

export interface ConnectionRegistry {
  attach(call: XdsCall, gateway: string, pod: string, held: Record<string, string>): ProxyConnection;
  detach(conn: ProxyConnection): void;
  replied(conn: ProxyConnection, outcome: ReplyOutcome): void;
  connections(): ProxyConnection[];
  /** The version of the snapshot the gateway's proxies are sent now ('' while it has none). */
  versionOf(gateway: string): string;
  /** Stops pushing and ends every stream with UNAVAILABLE. */
  close(): void;
}

export function createConnectionRegistry(opts: RegistryOptions, log: Logger, metrics: XdsMetrics): ConnectionRegistry {
  const byGateway = new Map<string, Set<ProxyConnection>>();
  let nextId = 0;
  const snapshots = watchSnapshots(opts, log, (g) => {
    for (const c of byGateway.get(g) ?? []) c.push();
  });

  // A failing callback is the caller's bug; it must not end the proxy's stream.
  const notify = (name: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      log.error({ err, callback: name }, 'xds callback failed');
    }
  };

  return {
    attach(call, gateway, pod, held) {
      const peer = call.getPeer();
      const conn = new ProxyConnection(++nextId, gateway, pod, peer, call, held, {
        metrics,
        log,
        snapshot: () => snapshots.get(gateway),
        ...(opts.resendBackoff ? { resendBackoff: opts.resendBackoff } : {}),
      });
      let set = byGateway.get(gateway);
      if (!set) byGateway.set(gateway, (set = new Set()));
      set.add(conn);
      metrics.connected.inc();
      log.info({ gateway, pod, peer, held: Object.keys(held).length }, 'proxy subscribed');
      conn.push();
      return conn;
    },
    detach(conn) {
      conn.close();
      const set = byGateway.get(conn.gateway);
      if (!set?.delete(conn)) return;
      metrics.connected.dec();
      log.info({ gateway: conn.gateway, pod: conn.pod, peer: conn.peer }, 'proxy disconnected');
      if (set.size === 0) {
        byGateway.delete(conn.gateway);
        snapshots.forget(conn.gateway);
      }
      // A proxy that is gone rejects nothing any more: its reports must not stay on status.
      const names = [...conn.rejected.keys()];
      if (names.length > 0) notify('onResolved', () => opts.onResolved?.(conn.gateway, conn.pod, names));
    },
    replied(conn, { ackedVersion, errors, resolved }) {
      if (ackedVersion !== undefined) notify('onAck', () => opts.onAck?.(conn.gateway, conn.pod, ackedVersion));
      if (errors.length > 0) {
        metrics.nacks.inc({ gateway: conn.gateway });
        log.warn({ gateway: conn.gateway, pod: conn.pod, errors }, 'proxy rejected resources');
        notify('onNack', () => opts.onNack?.(conn.gateway, conn.pod, errors));
      }
      if (resolved.length > 0) notify('onResolved', () => opts.onResolved?.(conn.gateway, conn.pod, resolved));
    },
    connections: () => [...byGateway.values()].flatMap((set) => [...set]),
    versionOf: (gateway) => snapshots.get(gateway)?.systemVersion ?? '',
    close() {
      snapshots.close();
      for (const c of [...byGateway.values()].flatMap((set) => [...set]))
        c.abort(grpc.status.UNAVAILABLE, 'the control plane is shutting down');
    },
  };
}

interface SnapshotCache {
  /** The gateway's versioned snapshot, built once per change; null while it has none. */
  get(gateway: string): VersionedSnapshot | null;
  forget(gateway: string): void;
  close(): void;
}

/** Versions each gateway's snapshot once per change and calls `changed` per gateway, debounced. */
function watchSnapshots(opts: RegistryOptions, log: Logger, changed: (gateway: string) => void): SnapshotCache {
  const snapshots = new Map<string, VersionedSnapshot | null>();
  /** The last snapshot built per gateway, kept while the gateway has none (deleted) too. */
  const latest = new Map<string, VersionedSnapshot>();
  const debouncer = createDebouncer<string>({
    quietMs: opts.debounceMs ?? 10,
    maxMs: opts.maxDelayMs ?? 1000,
    flush: (gateways) => {
      for (const g of gateways) {
        snapshots.delete(g);
        try {
          changed(g);
        } catch (err) {
          // A failing source must not take the other gateways (or the process) down with it.
          log.error({ err, gateway: g }, 'xds push failed; the next change of this gateway retries');
        }
      }
    },
  });
  const unsubscribe = opts.source.subscribe((gateways) => {
    // Dropped now, so a proxy connecting before the flush already gets the new snapshot.
    for (const g of gateways) snapshots.delete(g);
    debouncer.add(gateways);
  });
  return {
    get(gateway) {
      let s = snapshots.get(gateway);
      if (s === undefined) {
        const resources = opts.source.get(gateway);
        s = resources ? versionSnapshot(resources) : null;
        const prev = latest.get(gateway);
        // Unchanged content keeps its object, so proxies holding it are sent nothing; a change carries
        // its delta from the previous one, diffed and encoded once for every proxy that held that.
        if (s && prev) s = prev.systemVersion === s.systemVersion ? prev : linkSnapshots(prev, s);
        snapshots.set(gateway, s);
        if (s) latest.set(gateway, s);
      }
      return s;
    },
    forget: (gateway) => {
      snapshots.delete(gateway);
      latest.delete(gateway);
    },
    close() {
      unsubscribe();
      debouncer.cancel();
    },
  };
}
