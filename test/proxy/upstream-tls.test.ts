// GwPolicy `backend.tls` end to end: manifests translated to IR, served by a real runtime, forwarded to
// real node:https upstreams that present test certificates from tls-testdata/ (one also demands mTLS).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { upstreamTlsManifests } from './upstream-tls-manifests.js';

const pem = (f: string): string => readFileSync(join(import.meta.dirname, 'tls-testdata', f), 'utf8');

interface Seen {
  sni: string | false | null;
  client: string;
}

function startHttps(opts: { requestCert?: boolean }): Promise<Server> {
  const server = createServer(
    {
      cert: pem('a.crt'),
      key: pem('a.key'),
      ...(opts.requestCert ? { ca: pem('ca.crt'), requestCert: true, rejectUnauthorized: true } : {}),
    },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const seen: Seen = { sni: socket.servername, client: String(socket.getPeerCertificate().subject?.CN ?? '') };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
    },
  );
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (s: Server): number => (s.address() as AddressInfo).port;

describe('TLS from the proxy to HTTP backends (backend.tls)', () => {
  let tlsUp: Server;
  let mtlsUp: Server;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    [tlsUp, mtlsUp] = await Promise.all([startHttps({}), startHttps({ requestCert: true })]);
    runtime = new ProxyRuntime({ log });
    await runtime.apply(
      translatedIr(
        upstreamTlsManifests(portOf(tlsUp), portOf(mtlsUp), [
          { name: 'verified', tls: '{caCertificateRefs: [{name: test-ca}], sni: a.example.test}' },
          { name: 'secret-ca', tls: '{caCertificateRefs: [{kind: Secret, name: test-ca}], sni: a.example.test}' },
          { name: 'wrong-ca', tls: '{caCertificateRefs: [{name: other-ca}], sni: a.example.test}' },
          { name: 'system-roots', tls: '{sni: a.example.test}' },
          { name: 'mismatch', tls: '{caCertificateRefs: [{name: test-ca}], sni: b.example.test}' },
          {
            name: 'skip-host',
            tls: '{caCertificateRefs: [{name: test-ca}], sni: b.example.test, insecureSkipVerify: Hostname}',
          },
          { name: 'skip-all', tls: '{insecureSkipVerify: All}' },
          {
            name: 'san-ok',
            tls: '{caCertificateRefs: [{name: test-ca}], verifySubjectAltNames: [other.example.test, a.example.test]}',
          },
          {
            name: 'san-bad',
            tls: '{caCertificateRefs: [{name: test-ca}], sni: a.example.test, verifySubjectAltNames: [other.example.test]}',
          },
          {
            name: 'mtls',
            backend: 'mtls',
            tls: '{caCertificateRefs: [{name: test-ca}], sni: a.example.test, mtlsCertificateRef: [{name: client}]}',
          },
          { name: 'mtls-nocert', backend: 'mtls', tls: '{caCertificateRefs: [{name: test-ca}], sni: a.example.test}' },
          { name: 'plain', backend: 'up' },
          { name: 'missing-ca', tls: '{caCertificateRefs: [{name: nowhere}]}' },
        ]),
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await Promise.all(
      [tlsUp, mtlsUp].map(
        (s) =>
          s &&
          new Promise((r) => {
            s.closeAllConnections();
            s.close(r);
          }),
      ),
    );
  });

  async function ok(path: string): Promise<Seen> {
    const res = await rawRequest(`${base}${path}`);
    expect(res.status, res.body).toBe(200);
    return JSON.parse(res.body) as Seen;
  }

  async function tlsFailure(path: string): Promise<string> {
    const res = await rawRequest(`${base}${path}`);
    expect(res.status).toBe(503);
    const body = JSON.parse(res.body) as { error: string; error_description: string };
    expect(body.error).toBe('backend_unavailable');
    expect(body.error_description).toMatch(/^TLS to backend \S+ failed: /);
    expect(body.error_description).not.toMatch(/BEGIN|CN=|a\.example\.test/);
    return body.error_description;
  }

  it('verifies the backend against a CA from a ConfigMap and sends the configured SNI', async () => {
    expect(await ok('/verified')).toEqual({ sni: 'a.example.test', client: '' });
  });

  it('reads the CA from a Secret ca.crt as well', async () => {
    expect((await ok('/secret-ca')).sni).toBe('a.example.test');
  });

  it('answers 503 naming TLS when the backend certificate is not signed by the configured CA', async () => {
    expect(await tlsFailure('/wrong-ca')).toContain('not signed by a trusted CA');
  });

  it('uses the system roots when no CA is given, which do not trust a private CA', async () => {
    expect(await tlsFailure('/system-roots')).toContain('not signed by a trusted CA');
  });

  it('answers 503 when the certificate does not match the server name', async () => {
    expect(await tlsFailure('/mismatch')).toContain('does not match the host name');
  });

  it('accepts a certificate for another name with insecureSkipVerify Hostname, still sending the SNI', async () => {
    expect((await ok('/skip-host')).sni).toBe('b.example.test');
  });

  it('sends no SNI to an IP backend by default and skips all checks with insecureSkipVerify All', async () => {
    expect(await ok('/skip-all')).toEqual({ sni: false, client: '' });
  });

  it('accepts the peer when it presents one of verifySubjectAltNames, instead of the host name', async () => {
    expect((await ok('/san-ok')).sni).toBe(false);
  });

  it('answers 503 when the peer presents none of verifySubjectAltNames', async () => {
    expect(await tlsFailure('/san-bad')).toContain('none of verifySubjectAltNames');
  });

  it('presents the mtlsCertificateRef client certificate to a backend that requires one', async () => {
    expect(await ok('/mtls')).toEqual({ sni: 'a.example.test', client: 'gw-proxy' });
  });

  it('answers 503 when a backend requires a client certificate and none is configured', async () => {
    expect(await tlsFailure('/mtls-nocert')).toContain('requires a client certificate');
  });

  it('sends plain HTTP to an edge without backend.tls, which a TLS backend refuses', async () => {
    const res = await rawRequest(`${base}/plain`);
    expect(res.status).toBe(502);
  });

  it('does not program an edge whose TLS references are missing, rather than sending plaintext', async () => {
    const res = await rawRequest(`${base}/missing-ca`);
    // The route's only edge is left out: no plaintext attempt, and Gateway API's 500 for a route without a valid backend.
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'no_backend' });
  });
});
