// A stand-in for istiod's CA in the Istio identity tests. istiod itself (istio.io/istio/pilot) is far too
// large to build here, so this serves the one method the proxy calls,
// `istio.v1.auth.IstioCertificateService/CreateCertificate`, over gRPC with TLS, the way istiod answers it:
// it checks the Bearer token, signs the CSR's SPIFFE URI SAN (for the identity the token is for) with the
// requested lifetime, and returns the chain leaf first and root last.
import { generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import forge from 'node-forge';
import { createCa, issueServingCert, type CaBundle } from '../../../src/xds/ca.js';

const PROTO_ROOT = fileURLToPath(new URL('../../../proto/', import.meta.url));

export interface StandInCa {
  address: string;
  root: string;
  /** Calls answered with a certificate, and the lifetimes asked for. */
  issued: { spiffeId: string; validitySeconds: number }[];
  /** Signs a certificate for `spiffeId` (e.g. a mesh backend's), with a fresh key. */
  issue(spiffeId: string, validitySeconds: number, dnsNames?: string[]): { cert: string; key: string };
  close(): Promise<void>;
}

export async function startStandInCa(o: {
  token: string;
  spiffeId: string;
  maxValiditySeconds: number;
}): Promise<StandInCa> {
  const ca = await createCa(new Date(), 'stand-in Istio CA');
  const serving = await issueServingCert(ca, { names: ['localhost'], validityMs: 3600_000 });
  const issued: StandInCa['issued'] = [];
  const pkg = protoLoader.loadSync('istio/v1/auth/ca.proto', {
    includeDirs: [PROTO_ROOT],
    longs: String,
    defaults: true,
  });
  const service = pkg['istio.v1.auth.IstioCertificateService'] as grpc.ServiceDefinition;
  const server = new grpc.Server();
  server.addService(service, {
    CreateCertificate: (
      call: grpc.ServerUnaryCall<{ csr: string; validityDuration: string }, unknown>,
      done: grpc.sendUnaryData<unknown>,
    ) => {
      if (call.metadata.get('authorization')[0] !== `Bearer ${o.token}`)
        return done({ code: grpc.status.UNAUTHENTICATED, details: 'bad token' });
      const csr = forge.pki.certificationRequestFromPem(call.request.csr);
      const ext = csr.getAttribute({ name: 'extensionRequest' }) as {
        extensions?: { name: string; altNames?: { type: number; value: string }[] }[];
      } | null;
      const uri = ext?.extensions?.find((e) => e.name === 'subjectAltName')?.altNames?.find((a) => a.type === 6)?.value;
      if (uri !== o.spiffeId) return done({ code: grpc.status.PERMISSION_DENIED, details: `token is not for ${uri}` });
      const seconds = Math.min(Number(call.request.validityDuration) || o.maxValiditySeconds, o.maxValiditySeconds);
      issued.push({ spiffeId: uri, validitySeconds: seconds });
      const leaf = sign(ca, csr.publicKey as forge.pki.rsa.PublicKey, uri, seconds);
      done(null, { certChain: [leaf, ca.caCert] });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      '127.0.0.1:0',
      grpc.ServerCredentials.createSsl(null, [
        { cert_chain: Buffer.from(serving.cert), private_key: Buffer.from(serving.key) },
      ]),
      (err, p) => (err ? reject(err) : resolve(p)),
    ),
  );
  return {
    address: `localhost:${port}`,
    root: ca.caCert,
    issued,
    issue(spiffeId, validitySeconds, dnsNames = []) {
      // Node's key generation: forge's is pure JavaScript and slow.
      const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const publicKey = forge.pki.publicKeyFromPem(keys.publicKey.export({ format: 'pem', type: 'spki' }).toString());
      const key = keys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      return { cert: sign(ca, publicKey as forge.pki.rsa.PublicKey, spiffeId, validitySeconds, dnsNames), key };
    },
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}

function sign(
  ca: CaBundle,
  key: forge.pki.rsa.PublicKey,
  spiffeId: string,
  seconds: number,
  dns: string[] = [],
): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = key;
  cert.serialNumber = `0${forge.util.bytesToHex(forge.random.getBytesSync(8))}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + seconds * 1000);
  const caCert = forge.pki.certificateFromPem(ca.caCert);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    {
      name: 'subjectAltName',
      critical: true,
      altNames: [{ type: 6, value: spiffeId }, ...dns.map((d) => ({ type: 2, value: d }))],
    },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.caKey), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}
