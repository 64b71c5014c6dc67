// HTTP/2 on HTTPS listeners, translated from manifests and served by a real runtime: a real node:http2
// client negotiates h2 by ALPN and is forwarded to an HTTP/1.1 backend (pseudo-headers become Host, the
// backend sees X-Forwarded-Proto https, hop-by-hop response headers are dropped), an HTTP/1.1 client on
// the same port still works, a listener whose alpnProtocols lacks h2 refuses an h2-only client, and
// frontend.http.http2* reach the SETTINGS frame the client receives.
import { connect as h2connect, type ClientHttp2Session, type Settings } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { httpsManifests } from './https-manifests.js';
import { translatedIr } from './translated-ir.js';

interface H2Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
  settings: Settings;
}

function h2get(port: number, path: string): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const session: ClientHttp2Session = h2connect(`https://127.0.0.1:${port}`, {
      servername: 'a.example.test',
      rejectUnauthorized: false,
    });
    session.on('error', reject);
    session.once('remoteSettings', (settings) => {
      const stream = session.request({ ':path': path, ':authority': 'a.example.test' });
      let body = '';
      let headers: Record<string, unknown> = {};
      stream.on('response', (h) => (headers = h));
      stream.on('data', (c: Buffer) => (body += c.toString()));
      stream.on('end', () => {
        session.close();
        resolve({ status: Number(headers[':status']), headers, body, settings });
      });
      stream.on('error', reject);
    });
  });
}

describe('HTTP/2 on an HTTPS listener', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime | undefined;
  let port: number;
  let seen: Record<string, unknown> = {};
  const serve = async (frontend: string): Promise<void> => {
    await runtime?.close();
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(httpsManifests(upstream.port, frontend)));
    port = Object.values(runtime.boundPorts())[0] as number;
  };

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      seen = { ...req.headers, httpVersion: req.httpVersion, url: req.url };
      res.writeHead(200, { 'content-type': 'text/plain', connection: 'keep-alive', 'keep-alive': 'timeout=5' });
      res.end('ok');
    });
  });
  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('forwards an h2 request to an HTTP/1.1 backend', async () => {
    await serve('{http: {maxConcurrentRequests: 100}}');
    const answer = await h2get(port, '/x?y=1');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('ok');
    expect(answer.headers.connection).toBeUndefined();
    expect(answer.headers['keep-alive']).toBeUndefined();
    expect(seen.host).toBe('a.example.test');
    expect(seen['x-forwarded-proto']).toBe('https');
    expect(Object.keys(seen).some((k) => k.startsWith(':'))).toBe(false);
    expect(seen.httpVersion).toBe('1.1');
  });

  it('normalises an h2 :path as it does an HTTP/1.1 target, and refuses an encoded slash', async () => {
    await serve('{http: {maxConcurrentRequests: 100}}');
    expect((await h2get(port, '/x/..//y/%61/./b?q=%2F')).status).toBe(200);
    expect(seen.url).toBe('/y/a/b?q=%2F');
    seen = {};
    const refused = await h2get(port, '/y%2F..%2Fadmin');
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'bad_request' });
    expect(seen).toEqual({});
  });

  it('still serves HTTP/1.1 clients on the same port', async () => {
    await serve('{http: {maxConcurrentRequests: 100}}');
    const status = await new Promise<string>((resolve, reject) => {
      const s = tlsConnect(
        {
          port,
          host: '127.0.0.1',
          servername: 'a.example.test',
          rejectUnauthorized: false,
          ALPNProtocols: ['http/1.1'],
        },
        () => s.write('GET / HTTP/1.1\r\nHost: a.example.test\r\nConnection: close\r\n\r\n'),
      );
      let out = '';
      s.on('data', (c: Buffer) => (out += c.toString()));
      s.on('end', () => resolve(out.split('\r\n')[0] ?? ''));
      s.on('error', reject);
    });
    expect(status).toBe('HTTP/1.1 200 OK');
  });

  it('refuses an h2-only client where alpnProtocols lists only http/1.1', async () => {
    await serve('{tls: {alpnProtocols: [http/1.1]}}');
    await expect(h2get(port, '/')).rejects.toThrow();
  });

  it('sends frontend.http.http2* in its SETTINGS frame', async () => {
    await serve('{http: {http2WindowSize: 1Mi, http2FrameSize: 32Ki, http2MaxHeaderSize: 8Ki}}');
    const { settings, status } = await h2get(port, '/');
    expect(status).toBe(200);
    expect(settings.initialWindowSize).toBe(1024 * 1024);
    expect(settings.maxFrameSize).toBe(32 * 1024);
    expect(settings.maxHeaderListSize).toBe(8 * 1024);
  });

  it('opens the connection window to http2ConnectionWindowSize and pings every http2KeepaliveInterval', async () => {
    await serve('{http: {http2ConnectionWindowSize: 4Mi, http2KeepaliveInterval: 200ms, http2KeepaliveTimeout: 1s}}');
    const session = h2connect(`https://127.0.0.1:${port}`, { servername: 'a.example.test', rejectUnauthorized: false });
    const pinged = new Promise<boolean>((resolve) => {
      session.once('ping', () => resolve(true));
      setTimeout(() => resolve(false), 3000);
    });
    expect(await pinged).toBe(true);
    // The server's WINDOW_UPDATE raised what this client may send beyond the default 65535.
    expect(session.state.remoteWindowSize).toBe(4 * 1024 * 1024);
    session.close();
  });
});
