// The controller side of xDS: one delta stream per proxy, each fed the difference between what the
// proxy holds and its gateway's current snapshot. The snapshots come from a SnapshotSource the
// controller implements; this file never looks inside a resource. It wires the listener, the stream
// handler (src/xds/stream.ts) and the connection state (src/xds/connection-registry.ts).
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { BackoffOptions } from './backoff.js';
import { memoryCaStore, type CaStore } from './ca.js';
import { createConnectionRegistry } from './connection-registry.js';
import { listenFront, type FrontListener, type XdsMode } from './listener.js';
import { createXdsMetrics } from './metrics.js';
import { xdsServiceDefinition, type ResourceRefusal } from './protocol.js';
import { createServingCerts, type ServingCerts } from './serving-cert.js';
import type { XdsResource } from './snapshot.js';
import { handleStream, type ProxyIdentity, type XdsCall } from './stream.js';
import { withSharedEncoding } from './wire.js';

export type { XdsMode } from './listener.js';
export type { XdsResource } from './snapshot.js';
export type { ResourceError, ResourceRefusal } from './protocol.js';

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

export type { ProxyIdentity } from './stream.js';

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
  /**
   * A proxy does not serve these resources of its gateway: refused in a response (the rest of it was
   * applied), or dropped (`dropped: true`) because a response left them dangling.
   */
  onNack?: (gateway: string, pod: string, errors: ResourceRefusal[]) => void;
  /** A proxy applied a whole response; `systemVersion` identifies the snapshot it now holds. */
  onAck?: (gateway: string, pod: string, systemVersion: string) => void;
  /** A proxy applied resources it had refused before, or was told to remove them (or went away): clear what onNack reported. */
  onResolved?: (gateway: string, pod: string, names: string[]) => void;
  /** Metrics are registered here (once per server). */
  registry?: Registry;
  /** Quiet time before a push (default 10 ms) and the longest a change may wait (default 1000 ms). */
  debounceMs?: number;
  maxDelayMs?: number;
  /** Re-sending rejected resources when nothing changed (default from 1 s, doubling, capped at 1 min). */
  resendBackoff?: BackoffOptions;
}

export interface ConnectedProxy {
  gateway: string;
  pod: string;
  peer: string;
  /** Names the proxy rejected and has not applied since. */
  rejected: string[];
  /** Each of those with the proxy's reason (clipped), for the fleet view. */
  refusals: { name: string; message: string }[];
  /** Subscribed since (ISO time). */
  since: string;
  /** The snapshot version of the last response it applied whole ('' before its first ACK). */
  applied: string;
  /** The version its gateway's proxies are sent now: `applied` lags behind while a push is unanswered. */
  current: string;
  lastReply: { ack: 'ACK' | 'NACK'; at: string; version: string; errors: { name: string; message: string }[] } | null;
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

const DEFAULT_VALIDITY_MS = 7 * 24 * 3600 * 1000;

function defaultAuthorize(identity: ProxyIdentity, gateway: string): boolean {
  return gateway.split('/')[0] === identity.namespace;
}

export async function createXdsServer(opts: XdsServerOptions): Promise<XdsServer> {
  const log = opts.log.child({ component: 'xds' });
  const mode = opts.mode ?? 'tls';
  const metrics = createXdsMetrics(opts.registry);
  const connections = createConnectionRegistry(opts, log, metrics);
  let closing = false;
  const handle = (call: XdsCall) =>
    handleStream(call, {
      log,
      metrics,
      unavailable: () => {
        if (closing) return { reason: 'shutting_down', details: 'the control plane is shutting down' };
        if (!opts.source.ready())
          return { reason: 'not_ready', details: 'the control plane has not synced its caches yet' };
        return undefined;
      },
      ...(opts.authenticate ? { authenticate: opts.authenticate } : {}),
      authorize: opts.authorize ?? defaultAuthorize,
      attach: connections.attach,
      detach: connections.detach,
      replied: connections.replied,
    });
  const server = new grpc.Server({
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    // Nothing reads channelz here; on, grpc-js books every message of every stream (a Date.now() each).
    'grpc.enable_channelz': 0,
  });
  server.addService(withSharedEncoding(xdsServiceDefinition()), {
    DeltaResources: handle,
  } as grpc.UntypedServiceImplementation);
  let listening: { certs: ServingCerts | undefined; front: FrontListener };
  try {
    listening = await listen(server, opts, mode, log);
  } catch (err) {
    connections.close();
    server.forceShutdown();
    throw err;
  }
  const { certs, front } = listening;
  log.info({ port: front.port, mode }, 'xds serving');
  return {
    port: front.port,
    caBundle: certs?.caBundle,
    rotateServingCert: async () => {
      if (!certs) throw new Error('xds runs in plaintext mode: there is no serving certificate to rotate');
      await certs.rotate();
    },
    proxies: () =>
      connections.connections().map((c) => ({
        gateway: c.gateway,
        pod: c.pod,
        peer: c.peer,
        rejected: [...c.rejected.keys()].sort(),
        refusals: [...c.rejected].sort(([a], [b]) => a.localeCompare(b)).map(([name, message]) => ({ name, message })),
        since: new Date(c.since).toISOString(),
        applied: c.appliedVersion,
        current: connections.versionOf(c.gateway),
        lastReply: c.lastReply
          ? {
              ack: c.lastReply.ack,
              at: new Date(c.lastReply.at).toISOString(),
              version: c.lastReply.version,
              errors: c.lastReply.errors.map((e) => ({ name: e.name, message: e.message })),
            }
          : null,
      })),
    close: async () => {
      if (closing) return;
      closing = true;
      connections.close();
      certs?.close();
      server.forceShutdown();
      await front.close();
      metrics.connected.set(0);
    },
  };
}

/** The serving certificate (unless plaintext) and the front port taking both kinds of connection. */
async function listen(
  server: grpc.Server,
  opts: XdsServerOptions,
  mode: XdsMode,
  log: Logger,
): Promise<{ certs: ServingCerts | undefined; front: FrontListener }> {
  let certs: ServingCerts | undefined;
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
    const front = await listenFront({
      host: opts.host ?? '0.0.0.0',
      port: opts.port ?? 9978,
      mode,
      plaintext: mode === 'tls' ? undefined : server.createConnectionInjector(grpc.ServerCredentials.createInsecure()),
      tls: certs ? server.createConnectionInjector(certs.credentials) : undefined,
      log,
    });
    return { certs, front };
  } catch (err) {
    certs?.close();
    throw err;
  }
}
