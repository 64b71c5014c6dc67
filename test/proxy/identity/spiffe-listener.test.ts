// The listener options `tls-certificate-source: SPIFFE` and `tls-client-verification: SPIFFE` against a real
// SPIRE server and agent (test/spire, `make spire`): an HTTPS listener serves the proxy's X.509 SVID from the
// Workload API (a new SVID for new handshakes, open connections kept), and a verifying listener closes clients
// without an SVID of the trust domain. The entry's SVID TTL is short; rotation is awaited as an event.
import { X509Certificate } from 'node:crypto';
import { Agent, request, type AgentOptions } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect, type ConnectionOptions, type PeerCertificate, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { WorkloadApiClient } from '../../../src/proxy/identity/workload-api.js';
import type { IdentitySnapshot } from '../../../src/proxy/identity/workload-identity.js';
import { allBundlesPem } from '../../../src/proxy/identity/identity-tls.js';
import { log, startUpstream, type Upstream } from '../http-forward-harness.js';
import { gatewayWithStaticBackend } from '../translated-ir.js';
import { meshIr } from './mesh-gateway.js';
import { PROXY_ID, Spire } from './spire.js';

const pem = (f: string): string => readFileSync(join(import.meta.dirname, '..', 'tls-testdata', f), 'utf8');

function manifests(upstreamPort: number): string {
  const gateway = gatewayWithStaticBackend(upstreamPort).replace(
    'listeners: [{name: http, port: 8080, protocol: HTTP}]',
    `listeners:
  - {name: serve, port: 8443, protocol: HTTPS, tls: {options: {tls-certificate-source: SPIFFE}}}
  - name: verify
    port: 9443
    protocol: HTTPS
    tls: {options: {tls-certificate-source: SPIFFE, tls-client-verification: SPIFFE}}
  - {name: open, port: 10443, protocol: HTTPS, hostname: open.example.com, tls: {options: {tls-certificate-source: SPIFFE}}}
  - name: secure
    port: 10443
    protocol: HTTPS
    hostname: secure.example.com
    tls: {options: {tls-certificate-source: SPIFFE, tls-client-verification: SPIFFE}}`,
  );
  return `${gateway}---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: all, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules: [{backendRefs: [{group: gw.dev, kind: GwBackend, name: shop}]}]
`;
}

/** The status line of one raw HTTP/1.x request written on a TLS connection to `port` (no Node client rewriting it). */
function rawStatus(port: number, options: ConnectionOptions, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, checkServerIdentity: () => undefined, ...options }, () =>
      socket.write(head),
    );
    let text = '';
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1');
      if (text.includes('\r\n')) {
        resolve(text.slice(0, text.indexOf('\r\n')));
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
  });
}

interface Answer {
  status: number;
  /** The certificate the proxy served on the connection, and whether the connection was a reused one. */
  served: PeerCertificate;
  reused: boolean;
}

/** GET / over `agent`, trusting the SPIRE bundle; the server's identity is checked by the test, not by name. */
function get(port: number, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      const served = (res.socket as TLSSocket).getPeerCertificate();
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, served, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('listener option tls-certificate-source SPIFFE with a real SPIRE agent', () => {
  let spire: Spire;
  let proxyId: WorkloadApiClient;
  let clientId: WorkloadApiClient;
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let servePort: number;
  let verifyPort: number;
  let sharedPort: number;
  const agents: Agent[] = [];
  const agent = (o: AgentOptions = {}): Agent => {
    const a = new Agent({ keepAlive: true, maxSockets: 1, checkServerIdentity: () => undefined, ...o });
    agents.push(a);
    return a;
  };
  const bundle = (): string => allBundlesPem(clientId.identity.current as IdentitySnapshot);
  const svid = (): AgentOptions => {
    const s = clientId.identity.current as IdentitySnapshot;
    return { ca: bundle(), cert: s.certificate.certChainPem, key: s.certificate.privateKeyPem };
  };

  beforeAll(async () => {
    spire = await Spire.start({ svidTtlSeconds: 30 });
    upstream = await startUpstream((_req, res) => res.end('ok'));
    proxyId = new WorkloadApiClient({ socket: spire.endpoint, log });
    clientId = new WorkloadApiClient({ socket: spire.endpoint, log });
    runtime = new ProxyRuntime({ log, identity: proxyId.identity });
    await runtime.apply(meshIr(manifests(upstream.port), 'spiffe'));
    const ports = runtime.boundPorts();
    servePort = ports['default/web/8443'] as number;
    verifyPort = ports['default/web/9443'] as number;
    sharedPort = ports['default/web/10443'] as number;
    // Started last: translating and applying can hold a loaded machine's event loop for longer than the SVID TTL.
    await Promise.all([proxyId.start().identity.ready(), clientId.start().identity.ready()]);
  }, 180_000);

  afterAll(async () => {
    for (const a of agents) a.destroy();
    await runtime?.close();
    proxyId?.close();
    clientId?.close();
    await upstream?.close();
    await spire?.stop();
  });

  it('serves the SVID: a client trusting the SPIRE bundle completes the handshake and sees the SPIFFE ID', async () => {
    const res = await get(servePort, agent({ ca: bundle() }));
    expect(res.status).toBe(200);
    expect(res.served.subjectaltname).toBe(`URI:${PROXY_ID}`);
    expect(res.served.serialNumber).toBe(
      new X509Certificate(proxyId.identity.current!.certificate.certChainPem).serialNumber,
    );
  });

  it('is not verifiable with any other trust store (no fallback certificate)', async () => {
    await expect(get(servePort, agent({ ca: pem('ca.crt') }))).rejects.toThrow(/certificate/);
  });

  it('with tls-client-verification SPIFFE, closes a client that presents no certificate', async () => {
    await expect(get(verifyPort, agent({ ca: bundle() }))).rejects.toThrow(/socket hang up|ECONNRESET|closed/i);
  });

  it('with tls-client-verification SPIFFE, closes a client whose certificate is not from the trust bundle', async () => {
    const foreign = agent({ ca: bundle(), cert: pem('client.crt'), key: pem('client.key') });
    await expect(get(verifyPort, foreign)).rejects.toThrow(/socket hang up|ECONNRESET|closed/i);
  });

  it('with tls-client-verification SPIFFE, serves a client presenting an SVID of the trust domain', async () => {
    expect((await get(verifyPort, agent(svid()))).status).toBe(200);
  });

  it('a verifying listener sharing a port is reached only over its own handshake, however the target names it', async () => {
    const open = { ca: bundle(), servername: 'open.example.com' };
    // Over the open listener's handshake (no client certificate): its own host is served...
    expect(
      await rawStatus(sharedPort, open, 'GET / HTTP/1.1\r\nHost: open.example.com\r\nConnection: close\r\n\r\n'),
    ).toMatch(/ 200 /);
    // ...the verifying one's is not, named by Host, by an absolute-form target, or without SNI.
    expect(
      await rawStatus(sharedPort, open, 'GET / HTTP/1.1\r\nHost: secure.example.com\r\nConnection: close\r\n\r\n'),
    ).toMatch(/ 421 /);
    expect(
      await rawStatus(
        sharedPort,
        open,
        'GET https://secure.example.com/ HTTP/1.1\r\nHost: open.example.com\r\nConnection: close\r\n\r\n',
      ),
    ).toMatch(/ 421 /);
    expect(
      await rawStatus(
        sharedPort,
        { ca: bundle() },
        'GET https://secure.example.com/ HTTP/1.1\r\nHost: secure.example.com\r\nConnection: close\r\n\r\n',
      ),
    ).toMatch(/ 421 /);
    // Over its own handshake with an SVID of the domain, the verifying listener serves.
    const s = clientId.identity.current as IdentitySnapshot;
    const secure = {
      ca: bundle(),
      servername: 'secure.example.com',
      cert: s.certificate.certChainPem,
      key: s.certificate.privateKeyPem,
    };
    expect(
      await rawStatus(sharedPort, secure, 'GET / HTTP/1.1\r\nHost: secure.example.com\r\nConnection: close\r\n\r\n'),
    ).toMatch(/ 200 /);
  });

  it('serves a rotated SVID on new handshakes while a connection opened before keeps working', async () => {
    const kept = agent({ ca: bundle() });
    const before = await get(servePort, kept);
    expect(before.status).toBe(200);
    // The agent rotates at about half of the 30 s TTL: the next update is the rotation.
    const rotated = await new Promise<IdentitySnapshot>((resolve) => proxyId.identity.once('update', resolve));
    const serial = new X509Certificate(rotated.certificate.certChainPem).serialNumber;
    expect(before.served.serialNumber).not.toBe(serial);
    const fresh = await get(servePort, agent({ ca: bundle() }));
    expect(fresh.status).toBe(200);
    expect(fresh.served.serialNumber).toBe(serial);
    const again = await get(servePort, kept);
    expect(again).toMatchObject({ status: 200, reused: true });
    expect(again.served.serialNumber).toBe(before.served.serialNumber);
  }, 60_000);
});
