// Certificates made when a test runs (never checked in): a CA from the xDS CA code, and server or client
// leaf certificates it signs, with node-forge as src/xds/ca.ts uses it. For TLS and mTLS to real servers,
// and (issueCert) the roots, intermediates and SPIFFE leaves of chain checks.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';
import { createCa, type CaBundle } from '../../src/xds/ca.js';

export interface Leaf {
  cert: string;
  key: string;
}

export const testCa = (commonName = 'gw test CA'): Promise<CaBundle> => createCa(new Date(), commonName);

/** A leaf for `names` (DNS names or IPs), signed by `ca`, for serverAuth or clientAuth. */
export function issueLeaf(ca: CaBundle, names: string[], usage: 'server' | 'client'): Leaf {
  return sign({ cert: ca.caCert, key: ca.caKey }, names[0] ?? 'leaf', false, [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: usage === 'server', clientAuth: usage === 'client' },
    { name: 'subjectAltName', altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
  ]);
}

export interface CertOptions {
  commonName: string;
  /** URI SANs, e.g. SPIFFE IDs. */
  uris?: string[];
  /** basicConstraints cA with keyCertSign; `keyCertSign` alone is a leaf whose key usage allows signing. */
  ca?: boolean;
  keyCertSign?: boolean;
  /** Valid for an hour that ended a minute ago. */
  expired?: boolean;
}

/** A certificate signed by `issuer`, self-signed without one: for chain checks (names may repeat another's). */
export function issueCert(issuer: Leaf | undefined, o: CertOptions): Leaf {
  return sign(issuer, o.commonName, o.expired === true, [
    { name: 'basicConstraints', cA: o.ca === true, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyCertSign: o.ca === true || o.keyCertSign === true, critical: true },
    ...(o.uris?.length ? [{ name: 'subjectAltName', altNames: o.uris.map((value) => ({ type: 6, value })) }] : []),
  ]);
}

/** A fresh RSA key certified for an hour under `commonName`, by `issuer`'s key (its own without one). */
function sign(issuer: Leaf | undefined, commonName: string, expired: boolean, extensions: object[]): Leaf {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  const start = expired ? Date.now() - 3_660_000 : Date.now() - 60_000;
  cert.validity.notBefore = new Date(start);
  cert.validity.notAfter = new Date(start + 3_600_000);
  const subject = [{ name: 'commonName', value: commonName }];
  cert.setSubject(subject);
  cert.setIssuer(issuer ? forge.pki.certificateFromPem(issuer.cert).subject.attributes : subject);
  cert.setExtensions(extensions);
  cert.sign(forge.pki.privateKeyFromPem(issuer?.key ?? key), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key };
}
