// TLS settings made from the proxy's workload identity: the client side of `certificateSource: SPIFFE`
// backends, and (peer-verification) the check that the other side's SPIFFE ID is one that is allowed and
// that its chain ends in the bundle of that ID's own trust domain (a federated CA cannot vouch for another domain).
import { X509Certificate } from 'node:crypto';
import type { ConnectionOptions, PeerCertificate } from 'node:tls';
import { trustDomainOf, spiffeIdOf, type IdentitySnapshot, type WorkloadIdentity } from './workload-identity.js';

/** Error codes the forwarder turns into reasons (upstream-tls.ts tlsFailureReason). */
export const NO_IDENTITY = 'ERR_GW_NO_WORKLOAD_IDENTITY';
export const SPIFFE_ID_REFUSED = 'ERR_GW_SPIFFE_ID_REFUSED';

/** Every trust domain's CA certificates in one PEM bundle, for OpenSSL's chain building. */
export function allBundlesPem(s: IdentitySnapshot): string {
  return [...s.bundles.values()].join('');
}

/**
 * The proxy's own trust domain's CA certificates: the only roots a listener verifying clients by SPIFFE ID
 * (which must be of that domain) trusts, so a federated CA cannot sign a chain OpenSSL accepts for it.
 */
export function ownBundlePem(s: IdentitySnapshot): string {
  const own = trustDomainOf(s.certificate.spiffeId);
  // Without its own domain's bundle (never from SPIRE), every bundle, as before: the peer check still anchors the chain.
  return (own && s.bundles.get(own)) || allBundlesPem(s);
}

/**
 * Options of a client connection presenting the current identity and verifying the server by SPIFFE ID:
 * one of `allowedIds` (URIs of verifySubjectAltNames), or any ID of the proxy's own trust domain when none
 * are given. Throws (code NO_IDENTITY) when the proxy has no identity yet: the connection is not made.
 */
export function identityClientOptions(
  identity: WorkloadIdentity | undefined,
  allowedIds: readonly string[],
): ConnectionOptions {
  const s = identity?.current;
  if (!s)
    throw Object.assign(
      new Error(
        identity
          ? 'the proxy has not received its workload identity yet'
          : 'the proxy has no workload identity (SPIFFE_ENDPOINT_SOCKET and GW_ISTIO_ENABLED are unset)',
      ),
      { code: NO_IDENTITY },
    );
  // Fail closed rather than present a certificate every peer would refuse (the source is retrying meanwhile).
  if (s.certificate.expiresAt <= Date.now())
    throw Object.assign(new Error('the workload identity has expired and was not renewed'), { code: NO_IDENTITY });
  return {
    cert: s.certificate.certChainPem,
    key: s.certificate.privateKeyPem,
    ca: allBundlesPem(s),
    rejectUnauthorized: true,
    checkServerIdentity: (_host, cert) => peerIdProblem(s, allowedIds, cert),
  };
}

/** Why a verified peer chain is not acceptable, or undefined when it is. */
export function peerIdProblem(
  s: IdentitySnapshot,
  allowedIds: readonly string[],
  cert: PeerCertificate,
): Error | undefined {
  const refused = (message: string) => Object.assign(new Error(message), { code: SPIFFE_ID_REFUSED });
  const id = spiffeIdOf(cert);
  const td = id && trustDomainOf(id);
  if (!id || !td) return refused('the peer certificate carries no SPIFFE ID');
  const own = trustDomainOf(s.certificate.spiffeId);
  const allowed = allowedIds.length > 0 ? allowedIds.includes(id) : td === own;
  if (!allowed) return refused('the peer SPIFFE ID is not one of those allowed');
  if (!chainEndsIn(cert, s.bundles.get(td)))
    return refused("the peer chain is not anchored in its trust domain's bundle");
  return undefined;
}

/**
 * True when the peer's certificate is signed, directly or through CA certificates the peer presented, by a
 * certificate of `bundlePem` (or is one). The path is found by signatures here rather than read from Node's
 * issuer links: Node links presented certificates by name only, and completes the chain from a store that is
 * not the one of a context an SNI callback chose (Node 24 leaves a client of a listener that is not its port's
 * default with no anchor at all, though OpenSSL verified its chain against that listener's bundle).
 */
function chainEndsIn(cert: PeerCertificate, bundlePem: string | undefined): boolean {
  if (!bundlePem) return false;
  const roots = pemBlocks(bundlePem).map((b) => new X509Certificate(b));
  const [leaf, ...presented] = presentedChain(cert);
  const used = new Set<string>();
  for (let c = leaf; c;) {
    const at = c;
    if (roots.some((r) => r.fingerprint256 === at.fingerprint256 || signedBy(at, r))) return true;
    used.add(at.fingerprint256);
    // Only a CA may sign the next link: a leaf of the domain cannot vouch for a certificate it signed.
    // ...and only one valid now: OpenSSL checked the dates of the path it built, which may not be this one.
    c = presented.find((p) => p.ca && !used.has(p.fingerprint256) && validNow(p) && signedBy(at, p));
  }
  return false;
}

function validNow(c: X509Certificate, now = Date.now()): boolean {
  return Date.parse(c.validFrom) <= now && now <= Date.parse(c.validTo);
}

/** The peer's certificate and those Node linked to it (`getPeerCertificate(true)`), each once. */
function presentedChain(cert: PeerCertificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  for (let c: PeerCertificate | undefined = cert; c?.raw && !seen.has(c.fingerprint256);) {
    seen.add(c.fingerprint256);
    chain.push(new X509Certificate(c.raw));
    c = (c as PeerCertificate & { issuerCertificate?: PeerCertificate }).issuerCertificate;
  }
  return chain;
}

function signedBy(child: X509Certificate, issuer: X509Certificate): boolean {
  return child.checkIssued(issuer) && child.verify(issuer.publicKey);
}

function pemBlocks(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
}
