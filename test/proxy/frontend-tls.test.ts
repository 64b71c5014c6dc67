// GwPolicy `frontend.tls`, translated from manifests and served by a real runtime on an HTTPS listener:
// real TLS client handshakes check the negotiated version, cipher, group and ALPN protocol, and that a
// client offering only what the policy excludes fails. Each check would pass a handshake the field forbids
// if the field were skipped (the proxy's defaults allow TLS 1.2 and 1.3, every default suite and group).
import { connect as tcpConnect } from 'node:net';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postQuantumSupported } from '../../src/proxy/http/tls-settings.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { httpsManifests } from './https-manifests.js';

const manifests = (upstreamPort: number, tls: string): string => httpsManifests(upstreamPort, `{tls: ${tls}}`);

interface Handshake {
  version: string | null;
  cipher: string;
  alpn: string | false | null;
  group: string | undefined;
}

/** One TLS handshake to a.example.test; resolves what was negotiated, rejects with the client's error code. */
function handshake(port: number, opts: ConnectionOptions = {}): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const s: TLSSocket = connect(
      { port, host: '127.0.0.1', servername: 'a.example.test', rejectUnauthorized: false, ...opts },
      () => {
        resolve({
          version: s.getProtocol(),
          cipher: s.getCipher().name,
          alpn: s.alpnProtocol,
          group: (s.getEphemeralKeyInfo() as { name?: string } | null)?.name,
        });
        s.end();
      },
    );
    s.on('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code ?? err.message)));
  });
}

describe('frontend.tls on an HTTPS listener', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let port: number;
  const serve = async (tls: string): Promise<void> => {
    await runtime?.close();
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(manifests(upstream.port, tls)));
    port = Object.values(runtime.boundPorts())[0] as number;
  };

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => void res.writeHead(200).end('ok'));
  });
  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('minProtocolVersion TLS1_3 refuses a TLS 1.2-only client and negotiates TLS 1.3', async () => {
    await serve('{minProtocolVersion: TLS1_3}');
    await expect(handshake(port, { maxVersion: 'TLSv1.2' })).rejects.toThrow(/PROTOCOL_VERSION|ALERT/);
    expect((await handshake(port)).version).toBe('TLSv1.3');
  });

  it('maxProtocolVersion TLS1_2 caps a TLS 1.3 client at TLS 1.2', async () => {
    await serve('{maxProtocolVersion: TLS1_2}');
    expect((await handshake(port)).version).toBe('TLSv1.2');
    await expect(handshake(port, { minVersion: 'TLSv1.3' })).rejects.toThrow(/PROTOCOL_VERSION|ALERT/);
  });

  it('cipherSuites admits only the listed suites (TLS 1.2 by OpenSSL name, TLS 1.3 by TLS_ name)', async () => {
    await serve('{cipherSuites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS13_CHACHA20_POLY1305_SHA256]}');
    const tls12 = await handshake(port, { maxVersion: 'TLSv1.2' });
    expect(tls12.cipher).toBe('ECDHE-ECDSA-AES128-GCM-SHA256');
    expect((await handshake(port)).cipher).toBe('TLS_CHACHA20_POLY1305_SHA256');
    await expect(handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).rejects.toThrow(
      /HANDSHAKE_FAILURE|ALERT/,
    );
  });

  it('keyExchangeGroups P-384 is the group negotiated, and a client offering only X25519 fails', async () => {
    await serve('{keyExchangeGroups: [P-384]}');
    expect((await handshake(port)).group).toBe('secp384r1');
    await expect(handshake(port, { ecdhCurve: 'X25519' })).rejects.toThrow(/HANDSHAKE_FAILURE|ALERT/);
  });

  it('keyExchangeGroups X25519_MLKEM768 is served where OpenSSL has it (Node 24), else the listener is refused by name', async () => {
    if (!postQuantumSupported) {
      await expect(serve('{keyExchangeGroups: [X25519_MLKEM768]}')).rejects.toThrow(
        /keyExchangeGroups X25519_MLKEM768 needs OpenSSL 3\.5/,
      );
      return;
    }
    await serve('{keyExchangeGroups: [X25519_MLKEM768]}');
    await handshake(port, { ecdhCurve: 'X25519MLKEM768' });
    // Without the hybrid group the client has nothing in common with the listener.
    await expect(handshake(port, { ecdhCurve: 'X25519:P-256' })).rejects.toThrow(/HANDSHAKE_FAILURE|ALERT/);
  });

  it('alpnProtocols: a client offering none of the listed protocols fails with no_application_protocol', async () => {
    await serve('{alpnProtocols: [http/1.1]}');
    expect((await handshake(port, { ALPNProtocols: ['h2', 'http/1.1'] })).alpn).toBe('http/1.1');
    await serve('{alpnProtocols: [h2]}');
    await expect(handshake(port, { ALPNProtocols: ['http/1.1'] })).rejects.toThrow(/NO_APPLICATION_PROTOCOL/);
    expect((await handshake(port, { ALPNProtocols: ['http/1.1', 'h2'] })).alpn).toBe('h2');
  });

  it('handshakeTimeout closes a connection that never starts its handshake', async () => {
    await serve('{handshakeTimeout: 300ms}');
    const started = Date.now();
    const closedAfter = await new Promise<number>((resolve) => {
      const s = tcpConnect(port, '127.0.0.1');
      s.on('error', () => undefined);
      s.on('close', () => resolve(Date.now() - started));
    });
    // The default (15 s) would keep it open far longer than this test's 5 s budget.
    expect(closedAfter).toBeGreaterThanOrEqual(250);
    expect(closedAfter).toBeLessThan(3000);
  });

  it('serves requests over a handshake the policy allows', async () => {
    await serve('{minProtocolVersion: TLS1_2, maxProtocolVersion: TLS1_3, alpnProtocols: [http/1.1]}');
    const status = await new Promise<string>((resolve, reject) => {
      const s = connect({ port, host: '127.0.0.1', servername: 'a.example.test', rejectUnauthorized: false }, () =>
        s.write('GET / HTTP/1.1\r\nHost: a.example.test\r\nConnection: close\r\n\r\n'),
      );
      let out = '';
      s.on('data', (c: Buffer) => (out += c.toString()));
      s.on('end', () => resolve(out.split('\r\n')[0] ?? ''));
      s.on('error', reject);
    });
    expect(status).toBe('HTTP/1.1 200 OK');
  });
});
