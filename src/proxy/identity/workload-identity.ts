// The proxy's own workload identity (a SPIFFE X.509 SVID from the Workload API, or an Istio mesh
// certificate from istiod's CA) as one shape the TLS code reads: the current certificate and key, and the
// trust bundles by trust domain. A rotation replaces the whole value: handshakes started afterwards use the
// new one, connections already open keep the one they were made with. Behaviour: docs/proxy.md "Workload identity".
import { EventEmitter } from 'node:events';
import { X509Certificate } from 'node:crypto';

export interface IdentityCertificate {
  /** `spiffe://trust-domain/path` of the leaf. */
  spiffeId: string;
  /** PEM chain, leaf first. */
  certChainPem: string;
  /** PEM PKCS#8 private key. Secret: never logged. */
  privateKeyPem: string;
  /** The leaf's notAfter, epoch milliseconds. */
  expiresAt: number;
}

export interface IdentitySnapshot {
  certificate: IdentityCertificate;
  /** Trust domain → PEM CA certificates of that domain (own and federated / additional). */
  bundles: ReadonlyMap<string, string>;
}

/** Where the identity comes from, for messages: `SPIFFE Workload API` or `Istio CA`. */
export type IdentityKind = 'spiffe' | 'istio';

/**
 * The live identity of the process. `current` is undefined until the first certificate arrives; a TLS
 * connection that needs it then fails (closed, never downgraded to plaintext or to no client certificate).
 */
export class WorkloadIdentity extends EventEmitter<{ update: [IdentitySnapshot] }> {
  private value: IdentitySnapshot | undefined;
  private generationNo = 0;

  constructor(readonly kind: IdentityKind) {
    super();
  }

  get current(): IdentitySnapshot | undefined {
    return this.value;
  }

  /** Increases on every update: TLS settings built from one snapshot are keyed by it. */
  get generation(): number {
    return this.generationNo;
  }

  set(next: IdentitySnapshot): void {
    this.value = next;
    this.generationNo++;
    this.emit('update', next);
  }

  /** The first snapshot, or the current one. */
  ready(): Promise<IdentitySnapshot> {
    if (this.value) return Promise.resolve(this.value);
    return new Promise((resolve) => this.once('update', resolve));
  }
}

/** `spiffe://td/path` → `td`; undefined for anything that is not a SPIFFE ID. */
export function trustDomainOf(id: string): string | undefined {
  const m = /^spiffe:\/\/([a-z0-9._-]+)(\/[^?#]*)?$/.exec(id);
  return m?.[1];
}

/** Concatenated DER certificates (the Workload API's encoding) → one PEM block per certificate. */
export function derCertificatesToPem(der: Uint8Array): string {
  const blocks: string[] = [];
  let at = 0;
  while (at < der.length) {
    const len = derElementLength(der, at);
    const cert = new X509Certificate(Buffer.from(der.subarray(at, at + len)));
    blocks.push(cert.toString().trim());
    at += len;
  }
  return blocks.length ? `${blocks.join('\n')}\n` : '';
}

/** The full length (tag, length octets and contents) of the DER element starting at `at`. */
function derElementLength(der: Uint8Array, at: number): number {
  if (der[at] !== 0x30) throw new Error('not a DER certificate sequence');
  const first = der[at + 1] ?? 0;
  if (first < 0x80) return 2 + first;
  const octets = first & 0x7f;
  if (octets === 0 || octets > 4) throw new Error('unsupported DER length');
  let len = 0;
  for (let i = 0; i < octets; i++) len = len * 256 + (der[at + 2 + i] ?? 0);
  const total = 2 + octets + len;
  if (at + total > der.length) throw new Error('truncated DER certificate');
  return total;
}

/** The URI SAN that is a SPIFFE ID, from Node's `subjectAltName` text. */
export function spiffeIdOf(cert: X509Certificate | { subjectaltname?: string }): string | undefined {
  const text = cert instanceof X509Certificate ? (cert.subjectAltName ?? '') : (cert.subjectaltname ?? '');
  for (const part of text.split(', ')) if (part.startsWith('URI:spiffe://')) return part.slice(4);
  return undefined;
}
