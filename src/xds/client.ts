// The proxy side of xDS: keeps one delta stream to the controller, hands every response to `apply`
// as one update, ACKs or NACKs it, and reconnects with backoff. While disconnected nothing changes:
// the proxy keeps serving the last state it applied. Must not import controller code.
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import {
  AUTHORIZATION_HEADER,
  METHOD_NAME,
  xdsServiceDefinition,
  type DeltaRequest,
  type DeltaResponse,
  type ResourceError,
} from './protocol.js';

export interface XdsUpdateResource {
  name: string;
  type: string;
  version: string;
  body: Uint8Array;
}

/** One response: apply all of it or report, per resource, what could not be applied. */
export interface XdsUpdate {
  upserts: XdsUpdateResource[];
  removes: string[];
  /** The server's version of the whole snapshot this update leads to (for logs and tests). */
  systemVersion?: string;
}

export interface ApplyResult {
  /** Upserts left out: the proxy serves no version of them. */
  errors: ResourceError[];
  /**
   * Resources the proxy held, not part of the update, that it stopped serving while applying it
   * (left dangling by something refused or removed). Both empty means ACK.
   */
  dropped?: ResourceError[];
}

export interface XdsClientOptions {
  /** `host:port` of the controller's xDS port. */
  address: string;
  /** `namespace/name` of the Gateway this proxy serves. */
  gateway: string;
  podName: string;
  /** Read again on every connect: projected ServiceAccount tokens rotate. */
  tokenFile?: string;
  /** PEM bundle of the CA to trust; implies TLS. Read again on every connect. */
  caFile?: string;
  /** TLS with the system roots when no caFile is given. Default: true when caFile is set. */
  tls?: boolean;
  /** Name the server certificate must carry, when it differs from the host in `address`. */
  serverName?: string;
  log: Logger;
  apply: (update: XdsUpdate) => ApplyResult | Promise<ApplyResult>;
  backoff?: BackoffOptions;
  /** [0, 1); injectable so tests can fix the jitter. */
  random?: () => number;
  buildVersion?: string;
}

export interface XdsStatus {
  code: grpc.status;
  details: string;
}

export interface XdsClientEvents {
  /** The first complete snapshot was applied. */
  ready: [];
  /** A stream received its first response. */
  connected: [];
  /** The stream ended; a reconnect is scheduled after `retryInMs`. */
  disconnected: [status: XdsStatus, retryInMs: number];
  /** An update was applied (in part when result.errors is not empty). */
  update: [update: XdsUpdate, result: ApplyResult];
}

export interface XdsClient {
  /** True once the first complete snapshot was applied; stays true while disconnected. */
  readonly ready: boolean;
  readonly connected: boolean;
  /** {name → version} of what the proxy applied. */
  versions(): ReadonlyMap<string, string>;
  on<E extends keyof XdsClientEvents>(event: E, listener: (...args: XdsClientEvents[E]) => void): this;
  once<E extends keyof XdsClientEvents>(event: E, listener: (...args: XdsClientEvents[E]) => void): this;
  off<E extends keyof XdsClientEvents>(event: E, listener: (...args: XdsClientEvents[E]) => void): this;
  close(): void;
}

type Stream = grpc.ClientDuplexStream<DeltaRequest, DeltaResponse>;

/** SNI sent when the xDS address is an IP literal: `.invalid` is reserved (RFC 6761), so it names nothing. */
const NO_SNI_NAME = 'xds.gw.invalid';

/** The host of `host:port` (or `[v6]:port`, with an optional `dns:`/`ipv4:`/`ipv6:` scheme) when it is an IP literal. */
export function ipLiteralOf(address: string): string | undefined {
  const rest = address.replace(/^(dns|ipv4|ipv6):(\/\/[^/]*\/)?/, '');
  const host = rest.startsWith('[') ? rest.slice(1, rest.indexOf(']')) : rest.replace(/:\d+$/, '');
  return isIP(host) ? host : undefined;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // A fresh channel per attempt must not inherit a shared subchannel's reconnect backoff.
  'grpc.use_local_subchannel_pool': 1,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
};

function splitGateway(gateway: string): [string, string] {
  const parts = gateway.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    throw new Error(`xds client: gateway must be namespace/name, got "${gateway}"`);
  }
  return [parts[0], parts[1]];
}

class Client extends EventEmitter implements XdsClient {
  ready = false;
  connected = false;
  private readonly held = new Map<string, string>();
  private readonly Ctor = grpc.makeGenericClientConstructor(xdsServiceDefinition(), 'AggregatedDiscovery');
  private readonly random: () => number;
  private readonly node: { gatewayNamespace: string; gatewayName: string; podName: string; buildVersion: string };
  private grpcClient: grpc.Client | undefined;
  private stream: Stream | undefined;
  private timer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private closed = false;
  private chain = Promise.resolve();

  constructor(private readonly opts: XdsClientOptions) {
    super();
    const [gatewayNamespace, gatewayName] = splitGateway(opts.gateway);
    this.node = { gatewayNamespace, gatewayName, podName: opts.podName, buildVersion: opts.buildVersion ?? '' };
    this.random = opts.random ?? Math.random;
  }

  versions(): ReadonlyMap<string, string> {
    return this.held;
  }

  start(): void {
    void this.connect();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stream?.cancel();
    this.stream = undefined;
    this.grpcClient?.close();
    this.grpcClient = undefined;
  }

  private async credentials(): Promise<grpc.ChannelCredentials> {
    const useTls = this.opts.tls ?? this.opts.caFile !== undefined;
    if (!useTls) return grpc.credentials.createInsecure();
    const ca = this.opts.caFile ? await readFile(this.opts.caFile) : null;
    const ip = this.opts.serverName ? undefined : ipLiteralOf(this.opts.address);
    // The certificate is checked against the IP itself, whatever name the channel put in SNI (channelOptions).
    return ip
      ? grpc.credentials.createSsl(ca, null, null, {
          checkServerIdentity: (_host, cert) => checkServerIdentity(ip, cert),
        })
      : grpc.credentials.createSsl(ca);
  }

  /**
   * TLS SNI cannot carry an IP address (RFC 6066 §3) and Node warns (DEP0123) when asked to: dialling an IP
   * without --xds-server-name sends a reserved non-name instead, and credentials() checks the certificate's IP SAN.
   */
  private channelOptions(): grpc.ChannelOptions {
    if (this.opts.serverName) return { ...CHANNEL_OPTIONS, 'grpc.ssl_target_name_override': this.opts.serverName };
    const tlsByIp = (this.opts.tls ?? this.opts.caFile !== undefined) && ipLiteralOf(this.opts.address);
    return tlsByIp ? { ...CHANNEL_OPTIONS, 'grpc.ssl_target_name_override': NO_SNI_NAME } : CHANNEL_OPTIONS;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const log = this.opts.log;
    let creds: grpc.ChannelCredentials;
    const metadata = new grpc.Metadata();
    try {
      creds = await this.credentials();
      if (this.opts.tokenFile) {
        const token = (await readFile(this.opts.tokenFile, 'utf8')).trim();
        metadata.set(AUTHORIZATION_HEADER, `Bearer ${token}`);
      }
    } catch (err) {
      return this.down({
        code: grpc.status.UNAVAILABLE,
        details: `cannot read xds credentials: ${(err as Error).message}`,
      });
    }
    if (this.closed) return;
    this.grpcClient?.close();
    this.grpcClient = new this.Ctor(this.opts.address, creds, this.channelOptions());
    const method = (this.grpcClient as unknown as Record<string, (md: grpc.Metadata) => Stream>)[METHOD_NAME]!;
    const stream = method.call(this.grpcClient, metadata);
    this.stream = stream;
    let gotResponse = false;
    stream.on('data', (resp: DeltaResponse) => {
      if (!gotResponse) {
        gotResponse = true;
        this.attempt = 0;
        this.connected = true;
        log.info({ address: this.opts.address, gateway: this.opts.gateway }, 'xds connected');
        this.emit('connected');
      }
      this.chain = this.chain.then(() => this.handle(stream, resp));
    });
    // Every end of a call, OK or not, arrives as 'status'; 'error' only duplicates it.
    stream.on('error', () => undefined);
    stream.on('status', (st: grpc.StatusObject) => {
      if (this.stream !== stream) return;
      this.down({ code: st.code, details: st.details });
    });
    stream.write({ node: this.node, initialResourceVersions: Object.fromEntries(this.held) });
  }

  private down(status: XdsStatus): void {
    this.stream = undefined;
    this.connected = false;
    if (this.closed) return;
    const delay = backoffDelay(this.attempt++, this.random, this.opts.backoff ?? DEFAULT_BACKOFF);
    const level =
      status.code === grpc.status.PERMISSION_DENIED || status.code === grpc.status.UNAUTHENTICATED ? 'error' : 'warn';
    this.opts.log[level](
      {
        address: this.opts.address,
        gateway: this.opts.gateway,
        code: grpc.status[status.code],
        details: status.details,
        retryInMs: delay,
      },
      'xds stream ended; keeping the last applied configuration',
    );
    this.emit('disconnected', status, delay);
    this.timer = setTimeout(() => void this.connect(), delay);
  }

  private async handle(stream: Stream, resp: DeltaResponse): Promise<void> {
    const update: XdsUpdate = {
      upserts: resp.resources.map((r) => ({ name: r.name, type: r.type, version: r.version, body: r.body })),
      removes: resp.removedResources,
      systemVersion: resp.systemVersionInfo,
    };
    let result: ApplyResult;
    try {
      result = await this.opts.apply(update);
      // What is held is what is served: refused upserts and dropped resources are served at no version.
      for (const r of update.upserts) this.held.set(r.name, r.version);
      for (const name of update.removes) this.held.delete(name);
      for (const e of [...result.errors, ...(result.dropped ?? [])]) this.held.delete(e.name);
    } catch (err) {
      // apply promised atomicity: a throw means nothing of this update was applied (held is unchanged).
      const message = `proxy failed to apply the update: ${(err as Error).message}`;
      result = { errors: [...update.upserts.map((r) => r.name), ...update.removes].map((name) => ({ name, message })) };
    }
    const dropped = result.dropped ?? [];
    if (this.stream === stream) stream.write({ responseNonce: resp.nonce, errors: result.errors, dropped });
    if (result.errors.length > 0 || dropped.length > 0) {
      this.opts.log.warn(
        { gateway: this.opts.gateway, nonce: resp.nonce, errors: result.errors, dropped },
        'xds update applied in part; refused resources NACKed',
      );
    }
    this.emit('update', update, result);
    if (!this.ready) {
      this.ready = true;
      this.emit('ready');
    }
  }
}

/** Starts connecting at once; listen for 'ready' (or poll `ready`) before serving traffic. */
export function createXdsClient(opts: XdsClientOptions): XdsClient {
  const client = new Client(opts);
  client.start();
  return client;
}
