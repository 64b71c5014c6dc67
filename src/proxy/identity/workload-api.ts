// SPIFFE Workload API client: the two X.509 streams (FetchX509SVID, FetchX509Bundles) over the agent's
// unix socket, kept open for the life of the proxy and reopened with backoff when the agent goes away.
// Every SVID update replaces the identity; bundle updates replace the trust bundles.
import { createPrivateKey } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { grpcService } from '../ext/grpc-clients.js';
import {
  WorkloadIdentity,
  derCertificatesToPem,
  trustDomainOf,
  type IdentityCertificate,
  type IdentitySnapshot,
} from './workload-identity.js';
import { X509Certificate } from 'node:crypto';

const PROTO = 'spiffe/workload/workload.proto';
const SERVICE = 'SpiffeWorkloadAPI';

interface SvidMessage {
  spiffeId: string;
  x509Svid: Buffer;
  x509SvidKey: Buffer;
  bundle: Buffer;
}
interface SvidResponse {
  svids: SvidMessage[];
  federatedBundles: Record<string, Buffer>;
}
interface BundlesResponse {
  bundles: Record<string, Buffer>;
}

export interface WorkloadApiOptions {
  /** `unix:///path/to/agent.sock` (SPIFFE_ENDPOINT_SOCKET), or a bare absolute path. */
  socket: string;
  log: Logger;
  /** First reconnect delay; doubles up to 5 s. */
  retryMs?: number;
}

/** SPIFFE_ENDPOINT_SOCKET as the gRPC target; a clear error for anything but a unix socket. */
export function workloadApiTarget(value: string): string {
  if (value.startsWith('unix://')) return `unix://${value.slice('unix://'.length).replace(/^\/*/, '/')}`;
  if (value.startsWith('unix:')) return `unix://${value.slice('unix:'.length)}`;
  if (value.startsWith('/')) return `unix://${value}`;
  throw new Error(`SPIFFE_ENDPOINT_SOCKET ${JSON.stringify(value)}: must be unix:///path/to/socket`);
}

export class WorkloadApiClient {
  readonly identity = new WorkloadIdentity('spiffe');
  private readonly client: grpc.Client;
  private readonly def = grpcService(PROTO, SERVICE);
  private readonly calls = new Set<grpc.ClientReadableStream<unknown>>();
  private svidBundles = new Map<string, string>();
  private streamedBundles: Map<string, string> | undefined;
  private certificate: IdentityCertificate | undefined;
  private closed = false;

  constructor(private readonly opts: WorkloadApiOptions) {
    this.client = new grpc.Client(workloadApiTarget(opts.socket), grpc.credentials.createInsecure());
  }

  start(): this {
    this.open('FetchX509SVID', (m) => this.onSvids(m as SvidResponse));
    this.open('FetchX509Bundles', (m) => this.onBundles(m as BundlesResponse));
    return this;
  }

  close(): void {
    this.closed = true;
    for (const c of this.calls) c.cancel();
    this.calls.clear();
    this.client.close();
  }

  private open(method: 'FetchX509SVID' | 'FetchX509Bundles', onMessage: (m: unknown) => void, delay = 0): void {
    if (this.closed) return;
    const def = this.def[method] as grpc.MethodDefinition<object, unknown>;
    const metadata = new grpc.Metadata();
    // Required by the specification: the agent refuses calls without it (a guard against SSRF).
    metadata.set('workload.spiffe.io', 'true');
    const call = this.client.makeServerStreamRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      {},
      metadata,
    );
    this.calls.add(call);
    let received = false;
    call.on('data', (m: unknown) => {
      received = true;
      try {
        onMessage(m);
      } catch (err) {
        this.opts.log.warn({ method, reason: (err as Error).message }, 'SPIFFE Workload API sent an unusable update');
      }
    });
    const again = (reason: string) => {
      if (!this.calls.delete(call) || this.closed) return;
      const next = received ? 0 : Math.min(5000, Math.max(delay * 2, this.opts.retryMs ?? 200));
      this.opts.log.warn({ method, reason, retryMs: next }, 'SPIFFE Workload API stream ended; reopening');
      setTimeout(() => this.open(method, onMessage, next), next).unref();
    };
    call.on('error', (err: grpc.ServiceError) => again(`${grpc.status[err.code] ?? err.code}: ${err.details}`));
    call.on('end', () => again('end of stream'));
  }

  private onSvids(m: SvidResponse): void {
    const svid = m.svids[0];
    if (!svid) throw new Error('no SVID in the response');
    const td = trustDomainOf(svid.spiffeId);
    if (!td) throw new Error('the SVID has no valid SPIFFE ID');
    const certChainPem = derCertificatesToPem(svid.x509Svid);
    const privateKeyPem = createPrivateKey({ key: svid.x509SvidKey, format: 'der', type: 'pkcs8' })
      .export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const leaf = new X509Certificate(certChainPem);
    const bundles = new Map<string, string>([[td, derCertificatesToPem(svid.bundle)]]);
    for (const [name, der] of Object.entries(m.federatedBundles ?? {})) bundles.set(name, derCertificatesToPem(der));
    this.svidBundles = bundles;
    this.certificate = { spiffeId: svid.spiffeId, certChainPem, privateKeyPem, expiresAt: Date.parse(leaf.validTo) };
    this.opts.log.info(
      { spiffeId: svid.spiffeId, expiresAt: new Date(this.certificate.expiresAt).toISOString() },
      'SPIFFE X.509 SVID received',
    );
    this.publish();
  }

  private onBundles(m: BundlesResponse): void {
    const bundles = new Map<string, string>();
    for (const [name, der] of Object.entries(m.bundles ?? {})) bundles.set(name, derCertificatesToPem(der));
    this.streamedBundles = bundles;
    this.opts.log.info({ trustDomains: [...bundles.keys()] }, 'SPIFFE X.509 bundles received');
    this.publish();
  }

  /** The SVID with the bundles: FetchX509Bundles' set when it has spoken, else those of the SVID response. */
  private publish(): void {
    if (!this.certificate) return;
    const next: IdentitySnapshot = {
      certificate: this.certificate,
      bundles: new Map([...this.svidBundles, ...(this.streamedBundles ?? [])]),
    };
    this.identity.set(next);
  }
}
