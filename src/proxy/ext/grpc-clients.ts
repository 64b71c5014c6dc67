// gRPC plumbing for the proxy's calls to external services (ext_authz and the global rate limit; ext_proc
// and OTLP/gRPC can share it): the services' .proto files under proto/ loaded once, one channel per target and TLS setting,
// a deadline per call. Behaviour: docs/auth.md "External authorization" (gRPC).
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { checkServerIdentity } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ipLiteralOf } from '../../xds/client.js';
import type { BackendTls } from '../../ir/types.js';

// proto/ sits three levels above this file both in src/proxy/ext and in dist/proxy/ext.
const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));

/** TLS towards a gRPC service; PEM strings (the key is secret material: never logged). */
export interface GrpcTls {
  caPem?: string;
  certChainPem?: string;
  privateKeyPem?: string;
  /** Name expected in the server certificate and sent as SNI; default the target host (an IP is checked as an IP SAN). */
  serverName?: string;
  /** Skip the whole certificate check (backend.tls insecureSkipVerify: All). */
  skipVerify?: boolean;
}

export interface GrpcTarget {
  /** host:port */
  address: string;
  /** Unset: plaintext (h2c). */
  tls?: GrpcTls;
}

/**
 * The IR's BackendTls (a GwBackend's backend.tls) as gRPC TLS; without one, a `secure` scheme (grpcs, https)
 * means TLS against the system roots and a plain one h2c.
 */
export function grpcTlsOf(tls: BackendTls | null | undefined, secure: boolean): GrpcTls | undefined {
  if (!tls) return secure ? {} : undefined;
  return {
    ...(tls.caPem ? { caPem: tls.caPem } : {}),
    ...(tls.clientCertChainPem ? { certChainPem: tls.clientCertChainPem } : {}),
    ...(tls.clientPrivateKeyPem ? { privateKeyPem: tls.clientPrivateKeyPem } : {}),
    ...(tls.sni ? { serverName: tls.sni } : {}),
    ...(tls.insecureSkipVerify === 'SKIP_ALL' ? { skipVerify: true } : {}),
  };
}

/** A grpc:// (h2c) or grpcs:// (TLS) service URL, parsed once; a string says why it is not one. */
export function grpcUrlOf(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `url ${JSON.stringify(text)} is not a URL`;
  }
  if (url.protocol !== 'grpc:' && url.protocol !== 'grpcs:')
    return `url must be grpc:// or grpcs://, got ${url.protocol}`;
  return url;
}

const loaded = new Map<string, grpc.ServiceDefinition>();

/**
 * The method definitions of `service` (full name) from `protoFile` under proto/. Messages decode with
 * camelCase fields, enums and 64-bit integers as numbers/strings, defaults filled and oneofs named.
 */
export function grpcService(protoFile: string, service: string): grpc.ServiceDefinition {
  const key = `${protoFile}#${service}`;
  const known = loaded.get(key);
  if (known) return known;
  const pkg = protoLoader.loadSync(protoFile, {
    includeDirs: [PROTO_ROOT],
    keepCase: false,
    longs: String,
    enums: Number,
    defaults: true,
    oneofs: true,
    arrays: true,
    objects: true,
  });
  const def = pkg[service];
  if (!def || 'format' in def) throw new Error(`${protoFile}: service ${service} not found`);
  loaded.set(key, def as grpc.ServiceDefinition);
  return def as grpc.ServiceDefinition;
}

/** A failed call: `code` is the gRPC status (UNAVAILABLE, DEADLINE_EXCEEDED, …) by name. */
export class GrpcCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** One channel per target and TLS setting, reused by every call to it until close(). */
export class GrpcClients {
  private readonly clients = new Map<string, grpc.Client>();

  /** One unary call with a deadline; rejects with GrpcCallError. */
  unary<Req, Res>(
    target: GrpcTarget,
    method: grpc.MethodDefinition<Req, Res>,
    request: Req,
    o: { deadlineMs: number; metadata?: Record<string, string> },
  ): Promise<Res> {
    const client = this.client(target);
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(o.metadata ?? {})) metadata.set(k, v);
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        metadata,
        { deadline: Date.now() + o.deadlineMs },
        (err, value) => {
          if (err) reject(new GrpcCallError(grpc.status[err.code] ?? String(err.code), err.details));
          else if (value === undefined) reject(new GrpcCallError('INTERNAL', 'empty response'));
          else resolve(value);
        },
      );
    });
  }

  /** Starts connecting to `target` now, so the first call's deadline is not spent on the handshake. */
  connect(target: GrpcTarget): void {
    this.client(target).getChannel().getConnectivityState(true);
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }

  private client(target: GrpcTarget): grpc.Client {
    const key = `${target.address}\0${target.tls ? createHash('sha256').update(JSON.stringify(target.tls)).digest('hex') : 'plain'}`;
    let c = this.clients.get(key);
    if (!c) {
      c = new grpc.Client(target.address, credentialsOf(target), channelOptions(target));
      this.clients.set(key, c);
    }
    return c;
  }
}

/** A reserved name sent as SNI when dialling an IP literal without a server name (SNI cannot carry an IP). */
const NO_SNI_NAME = 'ext.gw.invalid';

function credentialsOf(target: GrpcTarget): grpc.ChannelCredentials {
  const tls = target.tls;
  if (!tls) return grpc.credentials.createInsecure();
  const ca = tls.caPem ? Buffer.from(tls.caPem) : null;
  const key = tls.privateKeyPem ? Buffer.from(tls.privateKeyPem) : null;
  const chain = tls.certChainPem ? Buffer.from(tls.certChainPem) : null;
  const host = tls.serverName ?? target.address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const ip = ipLiteralOf(target.address);
  return grpc.credentials.createSsl(ca, key, chain, {
    checkServerIdentity: (_name, cert) =>
      tls.skipVerify ? undefined : checkServerIdentity(tls.serverName ?? ip ?? host, cert),
    ...(tls.skipVerify ? { rejectUnauthorized: false } : {}),
  });
}

function channelOptions(target: GrpcTarget): grpc.ChannelOptions {
  const tls = target.tls;
  if (!tls) return {};
  const name = tls.serverName ?? (ipLiteralOf(target.address) ? NO_SNI_NAME : undefined);
  return name ? { 'grpc.ssl_target_name_override': name } : {};
}
