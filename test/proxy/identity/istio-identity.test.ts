// The Istio mesh identity: the proxy gets its certificate from a CA speaking istiod's CreateCertificate
// (a stand-in: istiod is too large to build here; see istio-ca-standin.ts), authenticated with the projected
// token file and verified with the mounted root, renews it before expiry, and uses it for mTLS to a mesh
// backend that requires a client certificate from that CA (`certificateSource: SPIFFE` edges).
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { IstioCaClient, istioSettingsFromEnv } from '../../../src/proxy/identity/istio-ca.js';
import type { IdentitySnapshot } from '../../../src/proxy/identity/workload-identity.js';
import { log, rawRequest } from '../http-forward-harness.js';
import { meshIr } from './mesh-gateway.js';
import { upstreamTlsManifests } from '../upstream-tls-manifests.js';
import { startStandInCa, type StandInCa } from './istio-ca-standin.js';

const PROXY_ID = 'spiffe://cluster.local/ns/gw-system/sa/gw-proxy';
const MESH_BACKEND = 'spiffe://cluster.local/ns/shop/sa/web';
const TOKEN = 'istio-ca-token-for-gw-proxy';

describe('Istio mesh identity from the CA at CA_ADDR', () => {
  let ca: StandInCa;
  let dir: string;
  let client: IstioCaClient;
  let mesh: Server;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    ca = await startStandInCa({ token: TOKEN, spiffeId: PROXY_ID, maxValiditySeconds: 30 });
    dir = mkdtempSync(join(tmpdir(), 'gw-istio-'));
    writeFileSync(join(dir, 'istio-token'), `${TOKEN}\n`);
    writeFileSync(join(dir, 'root-cert.pem'), ca.root);
    const env = {
      GW_ISTIO_ENABLED: 'true',
      CA_ADDR: ca.address,
      TRUST_DOMAIN: 'cluster.local',
      POD_NAMESPACE: 'gw-system',
      SERVICE_ACCOUNT: 'gw-proxy',
      GW_ISTIO_TOKEN_FILE: join(dir, 'istio-token'),
      GW_ISTIO_ROOT_CERT_FILE: join(dir, 'root-cert.pem'),
    };
    client = new IstioCaClient({ ...istioSettingsFromEnv(env), log });
    const meshCert = ca.issue(MESH_BACKEND, 3600);
    mesh = createServer(
      { cert: meshCert.cert, key: meshCert.key, ca: ca.root, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.end(JSON.stringify({ id: String(peer.subjectaltname).replace(/^URI:/, ''), serial: peer.serialNumber }));
      },
    );
    await new Promise<void>((r) => mesh.listen(0, '127.0.0.1', r));
    const port = (mesh.address() as AddressInfo).port;
    runtime = new ProxyRuntime({ log, identity: client.identity });
    await runtime.apply(
      meshIr(
        upstreamTlsManifests(port, port, [
          { name: 'mesh', tls: `{certificateSource: SPIFFE, verifySubjectAltNames: ['${MESH_BACKEND}']}` },
          {
            name: 'impostor',
            tls: `{certificateSource: SPIFFE, verifySubjectAltNames: ['spiffe://cluster.local/ns/shop/sa/db']}`,
          },
        ]),
        'istio',
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
    // Started last: translating and applying can hold a loaded machine's event loop for longer than the 30 s TTL.
    await client.start().identity.ready();
  }, 180_000);

  afterAll(async () => {
    client?.close();
    await runtime?.close();
    mesh?.closeAllConnections();
    mesh?.close();
    await ca?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('requests a certificate for spiffe://<trustDomain>/ns/<ns>/sa/<sa> with the projected token', () => {
    expect(client.identity.current?.certificate.spiffeId).toBe(PROXY_ID);
    expect(ca.issued[0]).toEqual({ spiffeId: PROXY_ID, validitySeconds: 30 });
  });

  it('presents the mesh certificate to a backend that requires one from the mesh CA', async () => {
    const res = await rawRequest(`${base}/mesh`);
    expect(res.status, res.body).toBe(200);
    expect((JSON.parse(res.body) as { id: string }).id).toBe(PROXY_ID);
  });

  it('refuses a mesh backend whose SPIFFE ID is not the one named', async () => {
    const res = await rawRequest(`${base}/impostor`);
    expect(res.status).toBe(503);
    expect(res.body).toContain('SPIFFE ID is not allowed');
  });

  it('renews the certificate before it expires and new connections use the new one', async () => {
    const before = client.identity.current as IdentitySnapshot;
    const renewed = await new Promise<IdentitySnapshot>((resolve) => client.identity.once('update', resolve));
    const serial = new X509Certificate(renewed.certificate.certChainPem).serialNumber;
    expect(serial).not.toBe(new X509Certificate(before.certificate.certChainPem).serialNumber);
    expect(renewed.certificate.expiresAt - before.certificate.expiresAt).toBeGreaterThan(0);
    // Before the old one expired: renewal is at half the lifetime.
    expect(Date.now()).toBeLessThan(before.certificate.expiresAt);
    mesh.closeAllConnections();
    const res = await rawRequest(`${base}/mesh`);
    expect(res.status, res.body).toBe(200);
    expect((JSON.parse(res.body) as { serial: string }).serial.toUpperCase()).toBe(serial.toUpperCase());
  }, 60_000);

  it('names the missing variable when GW_ISTIO_ENABLED is set without CA_ADDR', () => {
    expect(() => istioSettingsFromEnv({ GW_ISTIO_ENABLED: 'true' })).toThrow(/CA_ADDR is not set/);
  });
});
