// `backend.tls.certificateSource: SPIFFE` against a real SPIRE server and agent (test/spire, `make spire`):
// the proxy fetches its X.509 SVID and bundles over the Workload API, presents the SVID to an mTLS backend
// that trusts only the SPIRE bundle, and verifies the backend's SPIFFE ID against verifySubjectAltNames.
// The entry's SVID TTL is short, so the agent rotates it during the test; rotation is awaited as an event.
import { X509Certificate } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { WorkloadApiClient } from '../../../src/proxy/identity/workload-api.js';
import type { IdentitySnapshot } from '../../../src/proxy/identity/workload-identity.js';
import { allBundlesPem } from '../../../src/proxy/identity/identity-tls.js';
import { log, rawRequest } from '../http-forward-harness.js';
import { meshIr } from './mesh-gateway.js';
import { upstreamTlsManifests } from '../upstream-tls-manifests.js';
import { PROXY_ID, Spire, TRUST_DOMAIN } from './spire.js';

const pem = (f: string): string => readFileSync(join(import.meta.dirname, '..', 'tls-testdata', f), 'utf8');

interface Seen {
  /** The client certificate's SPIFFE ID and serial, as the backend saw them. */
  id: string;
  serial: string;
}

/** An HTTPS backend serving the SVID its own Workload API client holds and requiring a client SVID of the bundle. */
function svidBackend(source: WorkloadApiClient, held: EventEmitter<{ held: [() => void] }>): Promise<Server> {
  const options = (s: IdentitySnapshot) => ({
    cert: s.certificate.certChainPem,
    key: s.certificate.privateKeyPem,
    ca: allBundlesPem(s),
  });
  const server = createServer({ requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const seen: Seen = { id: String(peer.subjectaltname ?? '').replace(/^URI:/, ''), serial: peer.serialNumber };
    // Once: afterAll answers every held request the test left, including ones it answered itself.
    const answer = () => {
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
    };
    if (req.url?.startsWith('/hold')) held.emit('held', answer);
    else answer();
  });
  source.identity.on('update', (s) => server.setSecureContext(options(s)));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function plainBackend(): Promise<Server> {
  const server = createServer({ cert: pem('a.crt'), key: pem('a.key') }, (_req, res) => res.end('{}'));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (s: Server): number => (s.address() as AddressInfo).port;
const serialOf = (s: IdentitySnapshot): string => new X509Certificate(s.certificate.certChainPem).serialNumber;

describe('certificateSource SPIFFE with a real SPIRE agent', () => {
  let spire: Spire;
  let proxyId: WorkloadApiClient;
  let backendId: WorkloadApiClient;
  let backend: Server;
  let foreign: Server;
  let runtime: ProxyRuntime;
  let bare: ProxyRuntime;
  const held = new EventEmitter<{ held: [() => void] }>();
  const answers: (() => void)[] = [];
  let base: string;
  let bareBase: string;

  beforeAll(async () => {
    spire = await Spire.start({ svidTtlSeconds: 30 });
    proxyId = new WorkloadApiClient({ socket: spire.endpoint, log });
    backendId = new WorkloadApiClient({ socket: spire.endpoint, log });
    [backend, foreign] = await Promise.all([svidBackend(backendId, held), plainBackend()]);
    const ir = meshIr(
      upstreamTlsManifests(portOf(foreign), portOf(backend), [
        { name: 'by-id', backend: 'mtls', tls: `{certificateSource: SPIFFE, verifySubjectAltNames: ['${PROXY_ID}']}` },
        { name: 'trust-domain', backend: 'mtls', tls: '{certificateSource: SPIFFE}' },
        {
          name: 'wrong-id',
          backend: 'mtls',
          tls: `{certificateSource: SPIFFE, verifySubjectAltNames: ['spiffe://${TRUST_DOMAIN}/someone-else']}`,
        },
        { name: 'not-spire', tls: '{certificateSource: SPIFFE}' },
        // Settings of their own, so their connections are not ones an earlier case left in the pool.
        { name: 'hold', backend: 'mtls', tls: `{certificateSource: SPIFFE, verifySubjectAltNames: ['${PROXY_ID}']}` },
        { name: 'fresh', backend: 'mtls', tls: `{certificateSource: SPIFFE, alpnProtocols: [http/1.1]}` },
      ]),
      'spiffe',
    );
    runtime = new ProxyRuntime({ log, identity: proxyId.identity });
    bare = new ProxyRuntime({ log });
    await Promise.all([runtime.apply(ir), bare.apply(ir)]);
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
    bareBase = `http://127.0.0.1:${Object.values(bare.boundPorts())[0]}`;
    // Started last: translating and applying can hold a loaded machine's event loop for longer than the SVID TTL.
    await Promise.all([proxyId.start().identity.ready(), backendId.start().identity.ready()]);
  }, 180_000);

  afterAll(async () => {
    for (const answer of answers) answer();
    await Promise.all([runtime?.close(), bare?.close()]);
    proxyId?.close();
    backendId?.close();
    for (const s of [backend, foreign])
      if (s) {
        s.closeAllConnections();
        s.close();
      }
    await spire?.stop();
  });

  async function refused(url: string): Promise<string> {
    const res = await rawRequest(url);
    expect(res.status, res.body).toBe(503);
    const body = JSON.parse(res.body) as { error_description: string };
    expect(body.error_description).not.toMatch(/BEGIN|spiffe:\/\//);
    return body.error_description;
  }

  it('presents the SVID to a backend that requires one and accepts the backend SPIFFE ID named in verifySubjectAltNames', async () => {
    const res = await rawRequest(`${base}/by-id`);
    expect(res.status, res.body).toBe(200);
    expect((JSON.parse(res.body) as Seen).id).toBe(PROXY_ID);
  });

  it('accepts any SPIFFE ID of its own trust domain when verifySubjectAltNames is empty', async () => {
    expect((await rawRequest(`${base}/trust-domain`)).status).toBe(200);
  });

  it('refuses a backend whose SPIFFE ID is not the one named', async () => {
    expect(await refused(`${base}/wrong-id`)).toContain('SPIFFE ID is not allowed');
  });

  it('refuses a backend whose certificate is not from the SPIRE trust bundle', async () => {
    expect(await refused(`${base}/not-spire`)).toContain('not signed by a trusted CA');
  });

  it('fails closed when the proxy has no workload identity', async () => {
    expect(await refused(`${bareBase}/by-id`)).toContain('no workload identity');
  });

  it('uses a rotated SVID for new connections while a request on the old one completes', async () => {
    const arrived = once(held, 'held') as Promise<[() => void]>;
    const pending = rawRequest(`${base}/hold`);
    const [answer] = await arrived;
    answers.push(answer);
    // The agent rotates at about half of the 30 s TTL: the next update is the rotation.
    const rotated = await new Promise<IdentitySnapshot>((resolve) => proxyId.identity.once('update', resolve));
    const fresh = await rawRequest(`${base}/fresh`);
    expect(fresh.status, fresh.body).toBe(200);
    expect((JSON.parse(fresh.body) as Seen).serial).toBe(serialOf(rotated));
    answer();
    const old = await pending;
    expect(old.status, old.body).toBe(200);
    expect((JSON.parse(old.body) as Seen).serial).not.toBe(serialOf(rotated));
  }, 60_000);
});
