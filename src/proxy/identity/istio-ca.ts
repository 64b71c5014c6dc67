// Istio mesh identity: the proxy asks istiod's CA (`istio.v1.auth.IstioCertificateService/CreateCertificate`
// at CA_ADDR) to sign a CSR for `spiffe://<trust domain>/ns/<namespace>/sa/<service account>`, authenticated
// with the projected `istio-ca` token, over TLS verified with the mesh root the istio-ca-root-cert
// ConfigMap mounts. The certificate is renewed at half its lifetime (and retried with backoff on failure,
// the old one serving until it expires). Behaviour: docs/proxy.md "Workload identity".
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import forge from 'node-forge';
import type { Logger } from 'pino';
import { GrpcClients, grpcService } from '../ext/grpc-clients.js';
import { WorkloadIdentity } from './workload-identity.js';
import type * as grpc from '@grpc/grpc-js';

const PROTO = 'istio/v1/auth/ca.proto';
const SERVICE = 'istio.v1.auth.IstioCertificateService';

/** Where the deployer mounts the projected token and the root ConfigMap (src/deployer/pod-template.ts). */
export const ISTIO_TOKEN_FILE = '/var/run/secrets/tokens/istio-token';
export const ISTIO_ROOT_CERT_FILE = '/var/run/secrets/istio/root-cert.pem';

export interface IstioCaSettings {
  /** host:port of istiod's CA (CA_ADDR). */
  caAddress: string;
  trustDomain: string;
  additionalTrustDomains: string[];
  namespace: string;
  serviceAccount: string;
  /** ISTIO_META_CLUSTER_ID, sent as the `ClusterID` metadata istiod uses to pick the token reviewer. */
  clusterId?: string;
  tokenFile: string;
  rootCertFile: string;
  /** Name the CA's certificate must carry; default the host of caAddress. */
  serverName?: string;
  /** Requested certificate lifetime, seconds (default 24 h; the CA may shorten it). */
  validitySeconds?: number;
}

/** The settings from the deployer's environment; a clear error naming the variable that is missing. */
export function istioSettingsFromEnv(env: NodeJS.ProcessEnv): IstioCaSettings {
  const need = (name: string): string => {
    const v = env[name];
    if (!v) throw new Error(`GW_ISTIO_ENABLED is true but ${name} is not set`);
    return v;
  };
  return {
    caAddress: need('CA_ADDR'),
    trustDomain: env.TRUST_DOMAIN || 'cluster.local',
    additionalTrustDomains: (env.GW_ISTIO_ADDITIONAL_TRUST_DOMAINS ?? '').split(',').filter((d) => d.trim() !== ''),
    namespace: need('POD_NAMESPACE'),
    serviceAccount: need('SERVICE_ACCOUNT'),
    ...(env.ISTIO_META_CLUSTER_ID ? { clusterId: env.ISTIO_META_CLUSTER_ID } : {}),
    tokenFile: env.GW_ISTIO_TOKEN_FILE || ISTIO_TOKEN_FILE,
    rootCertFile: env.GW_ISTIO_ROOT_CERT_FILE || ISTIO_ROOT_CERT_FILE,
  };
}

interface CertificateResponse {
  certChain: string[];
}

export class IstioCaClient {
  readonly identity = new WorkloadIdentity('istio');
  private readonly clients = new GrpcClients();
  private readonly method: grpc.MethodDefinition<object, CertificateResponse>;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private failures = 0;

  constructor(private readonly o: IstioCaSettings & { log: Logger; clock?: () => number }) {
    this.method = grpcService(PROTO, SERVICE).CreateCertificate as grpc.MethodDefinition<object, CertificateResponse>;
  }

  get spiffeId(): string {
    return `spiffe://${this.o.trustDomain}/ns/${this.o.namespace}/sa/${this.o.serviceAccount}`;
  }

  start(): this {
    void this.renew();
    return this;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.clients.close();
  }

  private async renew(): Promise<void> {
    let next: number;
    try {
      const expiresAt = await this.fetch();
      this.failures = 0;
      // Half of what is left once the certificate is in hand: read before the call, the clock would count the
      // key generation and the CA's answer as lifetime still ahead, and a slow call would renew after expiry.
      next = Math.max(1000, (expiresAt - (this.o.clock ?? Date.now)()) / 2);
    } catch (err) {
      this.failures++;
      next = Math.min(30_000, 500 * 2 ** Math.min(this.failures, 6));
      // The reason only: the message of a failed call never holds the token.
      this.o.log.warn(
        { ca: this.o.caAddress, reason: (err as Error).message, retryMs: next },
        'Istio CA certificate request failed',
      );
    }
    if (this.closed) return;
    this.timer = setTimeout(() => void this.renew(), next);
    this.timer.unref();
  }

  /** One CreateCertificate call; publishes the new identity and returns its expiry. */
  private async fetch(): Promise<number> {
    const root = readFileSync(this.o.rootCertFile, 'utf8');
    const token = readFileSync(this.o.tokenFile, 'utf8').trim();
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const csr = csrPem(this.spiffeId, keyPem, publicKey.export({ format: 'pem', type: 'spki' }).toString());
    const host = this.o.caAddress.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    const res = await this.clients.unary(
      { address: this.o.caAddress, tls: { caPem: root, serverName: this.o.serverName ?? host } },
      this.method,
      { csr, validityDuration: String(this.o.validitySeconds ?? 86_400) },
      {
        deadlineMs: 10_000,
        metadata: { authorization: `Bearer ${token}`, ...(this.o.clusterId ? { ClusterID: this.o.clusterId } : {}) },
      },
    );
    const chain = res.certChain.map((c) => c.trim()).filter((c) => c !== '');
    if (!chain[0]) throw new Error('the CA answered without a certificate');
    const leaf = new X509Certificate(chain[0]);
    const got = leaf.subjectAltName
      ?.split(', ')
      .find((s) => s.startsWith('URI:'))
      ?.slice(4);
    if (got !== this.spiffeId)
      throw new Error(`the CA signed a certificate for ${got ?? 'no SPIFFE ID'}, not ${this.spiffeId}`);
    if (!leaf.checkPrivateKey(privateKey)) throw new Error('the CA returned a certificate for another key');
    const expiresAt = Date.parse(leaf.validTo);
    const bundles = new Map<string, string>();
    for (const td of [this.o.trustDomain, ...this.o.additionalTrustDomains]) bundles.set(td, root);
    this.identity.set({
      certificate: { spiffeId: this.spiffeId, certChainPem: `${chain.join('\n')}\n`, privateKeyPem: keyPem, expiresAt },
      bundles,
    });
    this.o.log.info(
      { spiffeId: this.spiffeId, expiresAt: new Date(expiresAt).toISOString() },
      'Istio mesh certificate received',
    );
    return expiresAt;
  }
}

/** A PKCS#10 request for `spiffeId` (URI SAN, no subject), signed with the key. */
function csrPem(spiffeId: string, privateKeyPem: string, publicKeyPem: string): string {
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  csr.setAttributes([
    { name: 'extensionRequest', extensions: [{ name: 'subjectAltName', altNames: [{ type: 6, value: spiffeId }] }] },
  ]);
  csr.sign(forge.pki.privateKeyFromPem(privateKeyPem), forge.md.sha256.create());
  return forge.pki.certificationRequestToPem(csr);
}
