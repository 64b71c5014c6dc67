// The anchor check of SPIFFE peers (peerIdProblem): a chain is anchored in its trust domain's bundle only by
// signatures, whatever issuer links Node gives. The peer certificates are the ones a real TLS server sees
// (`getPeerCertificate(true)`) with a store that lacks the client's roots, as Node 24 gives a verifying listener
// chosen by SNI on a port whose default context is another listener's (spiffe-listener.test.ts runs that case).
import { X509Certificate } from 'node:crypto';
import { createServer, connect, type PeerCertificate } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { peerIdProblem } from '../../../src/proxy/identity/identity-tls.js';
import type { IdentitySnapshot } from '../../../src/proxy/identity/workload-identity.js';
import { issueCert, type Leaf } from '../../support/test-certs.js';

/** The client certificate `chain` (leaf first) as the server side of a real handshake reads it. */
function seenByServer(chain: Leaf[], serving: Leaf): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const server = createServer({ ...serving, requestCert: true, rejectUnauthorized: false }, (socket) => {
      resolve(socket.getPeerCertificate(true));
      socket.end();
      server.close();
    });
    server.on('tlsClientError', reject);
    server.listen(0, '127.0.0.1', () => {
      const client = connect({
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        cert: chain.map((c) => c.cert).join(''),
        key: chain[0]?.key,
        rejectUnauthorized: false,
      });
      client.on('error', reject);
      client.resume();
    });
  });
}

describe('SPIFFE peer anchor check', () => {
  let root: Leaf;
  let federated: Leaf;
  let serving: Leaf;
  let snapshot: IdentitySnapshot;
  const problem = async (chain: Leaf[]): Promise<string | undefined> =>
    peerIdProblem(snapshot, [], await seenByServer(chain, serving))?.message;

  beforeAll(() => {
    serving = issueCert(undefined, { commonName: 'server' });
    root = issueCert(undefined, { commonName: 'gw.test CA', ca: true });
    // A federated domain's CA named like gw.test's: Node links a chain to gw.test's root by that name.
    federated = issueCert(undefined, { commonName: 'gw.test CA', ca: true });
    snapshot = {
      certificate: { spiffeId: 'spiffe://gw.test/gw-proxy', certChainPem: '', privateKeyPem: '', expiresAt: 0 },
      bundles: new Map([
        ['gw.test', root.cert],
        ['other.test', federated.cert],
      ]),
    };
  });

  it('accepts an SVID signed by the bundle root when Node linked no issuer to it', async () => {
    const svid = issueCert(root, { commonName: 'client', uris: ['spiffe://gw.test/client'] });
    expect(await problem([svid])).toBeUndefined();
  });

  it('accepts an SVID signed through a presented intermediate CA the bundle root signed', async () => {
    const intermediate = issueCert(root, { commonName: 'gw.test intermediate', ca: true });
    const svid = issueCert(intermediate, { commonName: 'client', uris: ['spiffe://gw.test/client'] });
    expect(await problem([svid, intermediate])).toBeUndefined();
  });

  it("refuses a chain that presents the domain's root but was signed by a federated CA of the same name", async () => {
    const svid = issueCert(federated, { commonName: 'client', uris: ['spiffe://gw.test/admin'] });
    const seen = await seenByServer([svid, root], serving);
    // Node linked the leaf to gw.test's root by name: only the signature tells it apart.
    expect((seen as PeerCertificate & { issuerCertificate?: PeerCertificate }).issuerCertificate?.raw).toEqual(
      new X509Certificate(root.cert).raw,
    );
    expect(peerIdProblem(snapshot, [], seen)?.message).toBe(
      "the peer chain is not anchored in its trust domain's bundle",
    );
  });

  it('refuses a chain through an intermediate CA of the domain that has expired', async () => {
    const intermediate = issueCert(root, { commonName: 'gw.test intermediate', ca: true, expired: true });
    const svid = issueCert(intermediate, { commonName: 'client', uris: ['spiffe://gw.test/client'] });
    expect(await problem([svid, intermediate])).toBe("the peer chain is not anchored in its trust domain's bundle");
  });

  it('refuses a certificate signed by a leaf of the domain that is not a CA', async () => {
    const workload = issueCert(root, { commonName: 'workload', uris: ['spiffe://gw.test/w'], keyCertSign: true });
    const forged = issueCert(workload, { commonName: 'forged', uris: ['spiffe://gw.test/admin'] });
    expect(await problem([forged, workload, root])).toBe("the peer chain is not anchored in its trust domain's bundle");
  });
});
