// The xDS certificate authority: one CA kept in a CaStore (a Secret in a cluster, memory or a file
// locally) so every controller replica serves certificates that proxies verify against one bundle.
// Node can verify X.509 but not create it, hence node-forge for building and signing certificates;
// keys come from node:crypto, which is fast and native.
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isIP } from 'node:net';
import forge from 'node-forge';

/** A CA as PEM text. */
export interface CaBundle {
  caCert: string;
  caKey: string;
}

/**
 * Where the CA lives. `put` stores a CA only when none is stored yet and returns the one that is
 * stored afterwards, so two replicas racing to create it both end up with the winner's CA
 * (a Secret create that gets 409 Conflict reads the existing Secret and returns it).
 */
export interface CaStore {
  get(): Promise<CaBundle | undefined>;
  put(ca: CaBundle): Promise<CaBundle>;
}

export interface ServingCert {
  cert: string;
  key: string;
  notBefore: Date;
  notAfter: Date;
}

const CA_VALIDITY_MS = 10 * 365 * 24 * 3600 * 1000;
// Clocks of controller and proxy may disagree a little; backdating avoids "not yet valid".
const BACKDATE_MS = 5 * 60 * 1000;

export function memoryCaStore(initial?: CaBundle): CaStore {
  let stored = initial;
  return {
    get: async () => stored,
    put: async (ca) => {
      stored ??= ca;
      return stored;
    },
  };
}

/** A CA kept as JSON `{caCert, caKey}` in one file (mode 0600), for local runs that restart. */
export function fileCaStore(path: string): CaStore {
  const read = async (): Promise<CaBundle | undefined> => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    let data: Partial<CaBundle> | null = null;
    try {
      data = JSON.parse(text) as Partial<CaBundle> | null;
    } catch {
      // reported below with the file name
    }
    if (typeof data?.caCert !== 'string' || typeof data.caKey !== 'string') {
      throw new Error(`${path}: must hold a JSON object with string fields caCert and caKey`);
    }
    return { caCert: data.caCert, caKey: data.caKey };
  };
  return {
    get: read,
    put: async (ca) => {
      const existing = await read();
      if (existing) return existing;
      await mkdir(dirname(path), { recursive: true });
      const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      await writeFile(tmp, JSON.stringify(ca), { mode: 0o600 });
      try {
        // link() fails when the file exists: of two racing processes exactly one stores its CA, whole.
        await link(tmp, path);
        return ca;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        return (await read())!;
      } finally {
        await unlink(tmp);
      }
    },
  };
}

const generateRsa = promisify(generateKeyPair);

// Generated on the libuv pool, so issuing a certificate never stalls the streams being served.
async function newKeyPair(): Promise<{
  forgeKey: forge.pki.rsa.PrivateKey;
  publicKey: forge.pki.rsa.PublicKey;
  pem: string;
}> {
  const { privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(pem);
  return { forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e), pem };
}

function serialNumber(): string {
  // Positive 128-bit serial: clear the top bit so DER does not read it as negative.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

export async function createCa(now: Date = new Date(), commonName = 'gw xds CA'): Promise<CaBundle> {
  const { forgeKey, publicKey, pem } = await newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - BACKDATE_MS);
  cert.validity.notAfter = new Date(now.getTime() + CA_VALIDITY_MS);
  const subject = [{ name: 'commonName', value: commonName }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forgeKey, forge.md.sha256.create());
  return { caCert: forge.pki.certificateToPem(cert), caKey: pem };
}

/** Returns the stored CA, creating and storing one when the store is empty. */
export async function loadOrCreateCa(store: CaStore, now: Date = new Date()): Promise<CaBundle> {
  const existing = await store.get();
  if (existing) return existing;
  return store.put(await createCa(now));
}

export interface IssueOptions {
  /** DNS names and IP addresses the serving certificate is valid for. */
  names: string[];
  validityMs: number;
  now?: Date;
}

export async function issueServingCert(ca: CaBundle, opts: IssueOptions): Promise<ServingCert> {
  const caCert = forge.pki.certificateFromPem(ca.caCert);
  const caKey = forge.pki.privateKeyFromPem(ca.caKey);
  const { publicKey, pem } = await newKeyPair();
  const now = opts.now ?? new Date();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - BACKDATE_MS);
  cert.validity.notAfter = new Date(now.getTime() + opts.validityMs);
  const commonName = opts.names[0] ?? 'gw-xds';
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer(caCert.subject.attributes);
  const altNames = opts.names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n }));
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return {
    cert: forge.pki.certificateToPem(cert),
    key: pem,
    notBefore: cert.validity.notBefore,
    notAfter: cert.validity.notAfter,
  };
}
