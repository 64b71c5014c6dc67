// Certificates made when a test runs (never checked in): a CA from the xDS CA code, and server or client
// leaf certificates it signs, with node-forge as src/xds/ca.ts uses it. For TLS and mTLS to real servers.
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
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 3_600_000);
  cert.setSubject([{ name: 'commonName', value: names[0] ?? 'leaf' }]);
  cert.setIssuer(forge.pki.certificateFromPem(ca.caCert).subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: usage === 'server', clientAuth: usage === 'client' },
    { name: 'subjectAltName', altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.caKey), forge.md.sha256.create());
  return {
    cert: forge.pki.certificateToPem(cert),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
