// The controller side of xDS: one delta stream per proxy, each fed the difference between what the
// proxy holds and its gateway's current snapshot. The snapshots come from a SnapshotSource the
// controller implements; this file never looks inside a resource.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { memoryCaStore, type CaStore } from './ca.js';
import { createDebouncer } from './debounce.js';
import { listenFront, type FrontListener, type XdsMode } from './listener.js';
import { createXdsMetrics } from './metrics.js';
import {
  AUTHORIZATION_HEADER,
  gatewayKey,
  xdsServiceDefinition,
  type DeltaRequest,
  type DeltaResponse,
  type ResourceError,
} from './protocol.js';
import { createServingCerts, type ServingCerts } from './serving-cert.js';
import { diffSnapshot, versionSnapshot, type VersionedSnapshot, type XdsResource } from './snapshot.js';

export type { XdsMode } from './listener.js';
export type { XdsResource } from './snapshot.js';
export type { ResourceError } from './protocol.js';

/**
 * Where snapshots come from. Gateways are keyed `namespace/name`.
 * - `ready()`: false until the controller's caches are synced; streams are refused (UNAVAILABLE) until then.
 * - `get(gateway)`: the gateway's whole snapshot {resource name → resource}, or undefined when the
 *   gateway has none yet (its proxies then wait, keeping whatever they hold). Return the same body
 *   objects for unchanged resources: versions are memoized per body.
 * - `subscribe(listener)`: call `listener` with the gateways whose snapshot changed; returns unsubscribe.
 */
export interface SnapshotSource {
  ready(): boolean;
  get(gateway: string): ReadonlyMap<string, XdsResource> | undefined;
  subscribe(listener: (gateways: ReadonlySet<string>) => void): () => void;
}

/** Who a proxy is, as the token says (a ServiceAccount in a cluster). */
export interface ProxyIdentity {
  namespace: string;
  serviceAccount: string;
}

export interface XdsServerOptions {
  source: SnapshotSource;
  log: Logger;
  /** Default 9978; 0 picks a free port. */
  port?: number;
  /** Default `0.0.0.0`. */
  host?: string;
  /** Default `tls`. */
  mode?: XdsMode;
  /** Where the CA is kept (tls and either); default: in memory, so a new CA on each start. */
  caStore?: CaStore;
  /** Names proxies dial, added to `localhost`, `127.0.0.1` and `::1` in the serving certificate. */
  tlsNames?: string[];
  /** Lifetime of a serving certificate (default 7 days); a new one is issued after two thirds of it. */
  certValidityMs?: number;
  /**
   * Checks the bearer token a proxy sends in the `authorization` metadata. Null: rejected
   * (UNAUTHENTICATED); a throw: the check itself failed (UNAVAILABLE, the proxy retries). Absent:
   * no authentication (local mode).
   */
  authenticate?: (token: string) => Promise<ProxyIdentity | null>;
  /** May this identity read this gateway (`namespace/name`)? Default: same namespace. */
  authorize?: (identity: ProxyIdentity, gateway: string) => boolean;
  /** A proxy rejected these resources of its gateway; the rest of that response was applied. */
  onNack?: (gateway: string, pod: string, errors: ResourceError[]) => void;
  /** A proxy applied a whole response; `systemVersion` identifies the snapshot it now holds. */
  onAck?: (gateway: string, pod: string, systemVersion: string) => void;
  /** A proxy applied (or dropped) resources it had rejected before: clear what onNack reported. */
  onResolved?: (gateway: string, pod: string, names: string[]) => void;
  /** Metrics are registered here (once per server). */
  registry?: Registry;
  /** Quiet time before a push (default 10 ms) and the longest a change may wait (default 1000 ms). */
  debounceMs?: number;
  maxDelayMs?: number;
}

export interface ConnectedProxy {
  gateway: string;
  pod: string;
  peer: string;
  /** Names the proxy rejected and has not applied since. */
  rejected: string[];
}

export interface XdsServer {
  readonly port: number;
  /** PEM of the CA proxies must trust; undefined in plaintext mode. */
  readonly caBundle: string | undefined;
  /** Issues a new serving certificate now; open streams are not affected. */
  rotateServingCert(): Promise<void>;
  proxies(): ConnectedProxy[];
  close(): Promise<void>;
}

interface Connection {
  id: number;
  gateway: string;
  pod: string;
  peer: string;
  call: grpc.ServerDuplexStream<DeltaRequest, DeltaResponse>;
  /** {name → version} the proxy holds or has been sent. A NACKed resource is not re-sent until it changes. */
  sent: Map<string, string>;
  initialized: boolean;
  seq: number;
  inflight: Map<string, { at: number; names: string[]; systemVersion: string }>;
  rejected: Map<string, string>;
}

const DEFAULT_VALIDITY_MS = 7 * 24 * 3600 * 1000;
const MAX_INFLIGHT = 64;
const MAX_NACK_ERRORS = 100;
const MAX_TEXT = 1024;

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function bearerToken(values: grpc.MetadataValue[]): string | undefined {
  const v = values[0];
  if (typeof v !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(v);
  return m?.[1];
}

function defaultAuthorize(identity: ProxyIdentity, gateway: string): boolean {
  return gateway.split('/')[0] === identity.namespace;
}

export async function createXdsServer(opts: XdsServerOptions): Promise<XdsServer> {
  const log = opts.log.child({ component: 'xds' });
  const mode = opts.mode ?? 'tls';
  const metrics = createXdsMetrics(opts.registry);
  const authorize = opts.authorize ?? defaultAuthorize;
  const byGateway = new Map<string, Set<Connection>>();
  const snapshots = new Map<string, VersionedSnapshot | null>();
  let nextId = 0;
  let closing = false;

  const snapshotOf = (gateway: string): VersionedSnapshot | null => {
    let s = snapshots.get(gateway);
    if (s === undefined) {
      const resources = opts.source.get(gateway);
      s = resources ? versionSnapshot(resources) : null;
      snapshots.set(gateway, s);
    }
    return s;
  };

  const push = (c: Connection) => {
    const snap = snapshotOf(c.gateway);
    if (!snap) return;
    const diff = diffSnapshot(c.sent, snap);
    // The first response is sent even when empty: it tells the proxy its snapshot is complete.
    if (c.initialized && diff.upserts.length === 0 && diff.removes.length === 0) return;
    c.initialized = true;
    for (const r of diff.upserts) c.sent.set(r.name, r.version);
    for (const n of diff.removes) c.sent.delete(n);
    const nonce = `${c.id}.${++c.seq}`;
    // A proxy that never answers must not grow this map without bound; its oldest nonces are forgotten.
    if (c.inflight.size >= MAX_INFLIGHT) c.inflight.delete(c.inflight.keys().next().value!);
    c.inflight.set(nonce, {
      at: performance.now(),
      names: [...diff.upserts.map((r) => r.name), ...diff.removes],
      systemVersion: snap.systemVersion,
    });
    const response: DeltaResponse = {
      resources: diff.upserts,
      removedResources: diff.removes,
      nonce,
      systemVersionInfo: snap.systemVersion,
    };
    c.call.write(response);
    metrics.pushes.inc();
    log.debug(
      { gateway: c.gateway, pod: c.pod, nonce, upserts: diff.upserts.length, removes: diff.removes.length },
      'xds push',
    );
  };

  const debouncer = createDebouncer<string>({
    quietMs: opts.debounceMs ?? 10,
    maxMs: opts.maxDelayMs ?? 1000,
    flush: (gateways) => {
      for (const g of gateways) {
        snapshots.delete(g);
        try {
          for (const c of byGateway.get(g) ?? []) push(c);
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

  // A failing callback is the caller's bug; it must not end the proxy's stream.
  const notify = (name: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      log.error({ err, callback: name }, 'xds callback failed');
    }
  };

  const onReply = (c: Connection, req: DeltaRequest) => {
    const nonce = req.responseNonce ?? '';
    const sent = c.inflight.get(nonce);
    if (!sent) {
      log.debug({ gateway: c.gateway, pod: c.pod, nonce }, 'xds reply for an unknown nonce ignored');
      return;
    }
    c.inflight.delete(nonce);
    metrics.pushToAck.observe((performance.now() - sent.at) / 1000);
    // NACK details come from the proxy and end up in logs and object status: keep them bounded.
    const errors = (req.errors ?? [])
      .slice(0, MAX_NACK_ERRORS)
      .map((e) => ({ name: clip(e.name), message: clip(e.message) }));
    const failed = new Set(errors.map((e) => e.name));
    const resolved: string[] = [];
    for (const name of sent.names) {
      if (!failed.has(name) && c.rejected.delete(name)) resolved.push(name);
    }
    for (const e of errors) c.rejected.set(e.name, e.message);
    if (errors.length === 0) notify('onAck', () => opts.onAck?.(c.gateway, c.pod, sent.systemVersion));
    if (errors.length > 0) {
      metrics.nacks.inc({ gateway: c.gateway });
      log.warn({ gateway: c.gateway, pod: c.pod, nonce, errors }, 'proxy rejected resources');
      notify('onNack', () => opts.onNack?.(c.gateway, c.pod, errors));
    }
    if (resolved.length > 0) notify('onResolved', () => opts.onResolved?.(c.gateway, c.pod, resolved));
  };

  const handleStream = (call: grpc.ServerDuplexStream<DeltaRequest, DeltaResponse>) => {
    const peer = call.getPeer();
    let conn: Connection | undefined;
    let done = false;
    const refuse = (reason: string, code: grpc.status, details: string, fields: object = {}) => {
      if (done) return;
      done = true;
      metrics.refused.inc({ reason });
      log.info({ peer, reason, ...fields }, `xds stream refused: ${details}`);
      call.emit('error', { code, details });
    };
    if (closing) return refuse('shutting_down', grpc.status.UNAVAILABLE, 'the control plane is shutting down');
    if (!opts.source.ready())
      return refuse('not_ready', grpc.status.UNAVAILABLE, 'the control plane has not synced its caches yet');

    let identity: Promise<ProxyIdentity | null> | undefined;
    if (opts.authenticate) {
      const token = bearerToken(call.metadata.get(AUTHORIZATION_HEADER));
      if (!token)
        return refuse(
          'unauthenticated',
          grpc.status.UNAUTHENTICATED,
          'missing bearer token in metadata "authorization"',
        );
      identity = opts.authenticate(token);
      identity.catch(() => undefined); // handled where awaited; avoids an unhandled rejection before then
    }

    const cleanup = () => {
      done = true;
      if (!conn) return;
      const set = byGateway.get(conn.gateway);
      if (set?.delete(conn)) {
        metrics.connected.dec();
        log.info({ gateway: conn.gateway, pod: conn.pod, peer }, 'proxy disconnected');
      }
      if (set && set.size === 0) {
        byGateway.delete(conn.gateway);
        snapshots.delete(conn.gateway);
      }
    };

    const subscribe = async (req: DeltaRequest) => {
      const node = req.node;
      if (!node?.gatewayNamespace || !node.gatewayName) {
        return refuse(
          'invalid',
          grpc.status.INVALID_ARGUMENT,
          'the first request must carry node.gateway_namespace and node.gateway_name',
        );
      }
      const gateway = gatewayKey(node.gatewayNamespace, node.gatewayName);
      const pod = node.podName || peer;
      if (identity) {
        let who: ProxyIdentity | null;
        try {
          who = await identity;
        } catch (err) {
          log.warn({ gateway, pod, err }, 'xds token check failed');
          return refuse('auth_error', grpc.status.UNAVAILABLE, 'the proxy token could not be checked; retry');
        }
        if (!who)
          return refuse('unauthenticated', grpc.status.UNAUTHENTICATED, 'the proxy token is not valid', {
            gateway,
            pod,
          });
        if (!authorize(who, gateway)) {
          const subject = `system:serviceaccount:${who.namespace}:${who.serviceAccount}`;
          return refuse(
            'permission_denied',
            grpc.status.PERMISSION_DENIED,
            `${subject} may not read the configuration of gateway ${gateway}`,
            { gateway, pod },
          );
        }
      }
      if (done) return;
      conn = {
        id: ++nextId,
        gateway,
        pod,
        peer,
        call,
        sent: new Map(Object.entries(req.initialResourceVersions ?? {})),
        initialized: false,
        seq: 0,
        inflight: new Map(),
        rejected: new Map(),
      };
      let set = byGateway.get(gateway);
      if (!set) byGateway.set(gateway, (set = new Set()));
      set.add(conn);
      metrics.connected.inc();
      log.info({ gateway, pod, peer, held: conn.sent.size }, 'proxy subscribed');
      push(conn);
    };

    let chain = Promise.resolve();
    call.on('data', (req: DeltaRequest) => {
      chain = chain
        .then(() => {
          if (done) return;
          if (!conn) return subscribe(req);
          onReply(conn, req);
        })
        .catch((err: unknown) => {
          log.error({ err, peer }, 'xds stream failed');
          if (!done) call.emit('error', { code: grpc.status.INTERNAL, details: 'internal error in the control plane' });
          cleanup();
        });
    });
    call.on('end', () => {
      cleanup();
      call.end();
    });
    call.on('cancelled', cleanup);
    call.on('close', cleanup);
    call.on('error', cleanup);
  };

  const server = new grpc.Server({ 'grpc.keepalive_time_ms': 30_000, 'grpc.keepalive_timeout_ms': 10_000 });
  server.addService(xdsServiceDefinition(), { DeltaResources: handleStream } as grpc.UntypedServiceImplementation);

  let certs: ServingCerts | undefined;
  let front: FrontListener;
  try {
    if (mode !== 'plaintext') {
      const names = [...new Set(['localhost', '127.0.0.1', '::1', ...(opts.tlsNames ?? [])])];
      certs = await createServingCerts({
        store: opts.caStore ?? memoryCaStore(),
        names,
        validityMs: opts.certValidityMs ?? DEFAULT_VALIDITY_MS,
        log,
      });
    }
    front = await listenFront({
      host: opts.host ?? '0.0.0.0',
      port: opts.port ?? 9978,
      mode,
      plaintext: mode === 'tls' ? undefined : server.createConnectionInjector(grpc.ServerCredentials.createInsecure()),
      tls: certs ? server.createConnectionInjector(certs.credentials) : undefined,
      log,
    });
  } catch (err) {
    unsubscribe();
    certs?.close();
    server.forceShutdown();
    throw err;
  }
  log.info({ port: front.port, mode }, 'xds serving');

  return {
    port: front.port,
    caBundle: certs?.caBundle,
    rotateServingCert: async () => {
      if (!certs) throw new Error('xds runs in plaintext mode: there is no serving certificate to rotate');
      await certs.rotate();
    },
    proxies: () =>
      [...byGateway.values()].flatMap((set) =>
        [...set].map((c) => ({
          gateway: c.gateway,
          pod: c.pod,
          peer: c.peer,
          rejected: [...c.rejected.keys()].sort(),
        })),
      ),
    close: async () => {
      if (closing) return;
      closing = true;
      unsubscribe();
      debouncer.cancel();
      certs?.close();
      for (const set of byGateway.values()) {
        for (const c of set)
          c.call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'the control plane is shutting down' });
      }
      server.forceShutdown();
      await front.close();
      metrics.connected.set(0);
    },
  };
}
