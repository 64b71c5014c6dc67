// GwPolicy `frontend.proxyProtocol`: the header reader on table cases (testdata/proxy-headers.yaml), then real
// sockets through a real listener sending version 1 and 2 headers. The source address the header names is
// what networkAuthorization, X-Forwarded-For and the access log see; without the field the header would be
// taken for HTTP (400) and the peer would be 127.0.0.1.
import { readFileSync } from 'node:fs';
import { connect as h2connect } from 'node:http2';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readProxyHeader, type ProxyVersion } from '../../src/proxy/http/proxy-header.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startUpstream, type Upstream } from './http-forward-harness.js';
import { httpsManifests } from './https-manifests.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests, frontendPolicy } from './traffic-manifests.js';

interface Case {
  name: string;
  version: ProxyVersion;
  text?: string;
  hex?: string;
  want: { kind: string; length?: number; source?: unknown; reason?: string };
}
const cases = parse(readFileSync(new URL('./testdata/proxy-headers.yaml', import.meta.url), 'utf8')) as Case[];
const bytesOf = (c: Case): Buffer =>
  c.hex !== undefined ? Buffer.from(c.hex.replace(/\s/g, ''), 'hex') : Buffer.from(c.text ?? '', 'latin1');

describe('readProxyHeader', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = readProxyHeader(bytesOf(c), c.version);
    const { reason, ...want } = c.want;
    expect(got).toMatchObject(want);
    if (reason) expect(got.kind === 'invalid' ? got.reason : '').toContain(reason);
    if (got.kind === 'header' && !c.want.source) expect(got.source).toBeUndefined();
  });
});

const ca = readFileSync(path.join(import.meta.dirname, 'tls-testdata', 'ca.crt'));
const GET = 'GET /app/x HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n';

/** A version 2 PROXY header (PROXY command, TCP over IPv4). */
function v2(source: string, sourcePort: number): Buffer {
  const ip = (a: string): number[] => a.split('.').map(Number);
  const block = Buffer.from([...ip(source), 10, 0, 0, 1, sourcePort >> 8, sourcePort & 0xff, 0, 80]);
  const fixed = Buffer.from('0d0a0d0a000d0a515549540a2111000c', 'hex');
  return Buffer.concat([fixed, block]);
}

/** Sends `parts` (one write each) and reads to the end: the response, or '' when the proxy closed without one. */
function exchange(socket: Socket, parts: (string | Buffer)[]): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    socket.on('data', (c: Buffer) => (got += c.toString()));
    socket.on('error', () => resolve(got));
    socket.on('close', () => resolve(got));
    const write = (i: number): void => {
      if (i >= parts.length || socket.destroyed) return;
      socket.write(parts[i] as string | Buffer);
      setTimeout(() => write(i + 1), 5);
    };
    socket.once('connect', () => write(0));
    socket.once('secureConnect', () => write(0));
  });
}

const policy = (frontend: string): string => frontendPolicy(frontend);
const forwardedFor = (response: string): unknown =>
  (JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>)['x-forwarded-for'];

let upstream: Upstream;
let runtime: ProxyRuntime | undefined;
let port: number;
let lines: Record<string, unknown>[] = [];

const serve = async (manifests: string): Promise<void> => {
  await runtime?.close();
  lines = [];
  const log = pino(
    { level: 'info' },
    { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) },
  );
  runtime = new ProxyRuntime({ log, limits: { headersTimeoutMs: 500 } });
  await runtime.apply(translatedIr(manifests));
  port = Object.values(runtime.boundPorts())[0] as number;
};
const app = (frontend: string): string =>
  trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], policy(frontend));
const rejected = async (): Promise<number> =>
  (await runtime?.metrics.registry.getSingleMetric('gw_listener_proxy_protocol_rejected_total')?.get())?.values[0]
    ?.value ?? 0;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    const body = JSON.stringify(req.headers);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
});

describe('frontend.proxyProtocol V1 Strict', () => {
  beforeAll(() =>
    serve(
      app(
        `{proxyProtocol: {version: V1}, accessLog: {}, networkAuthorization: {policy: {matchExpressions: ['source.address == "203.0.113.7"']}}}`,
      ),
    ),
  );

  it('takes the client from the header: networkAuthorization, X-Forwarded-For and the access log see it', async () => {
    const answer = await exchange(connect(port, '127.0.0.1'), ['PROXY TCP4 203.0.113.7 10.0.0.1 4711 80\r\n', GET]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(forwardedFor(answer)).toBe('203.0.113.7');
    expect(lines.find((l) => l.msg === 'access')).toMatchObject({ client: '203.0.113.7', status: 200 });
  });

  it('lets networkAuthorization refuse a client the header names', async () => {
    expect(await exchange(connect(port, '127.0.0.1'), ['PROXY TCP4 198.51.100.1 10.0.0.1 4711 80\r\n', GET])).toBe('');
  });

  it('reads a header that arrives a few bytes at a time, with the request in the same write as its end', async () => {
    const header = 'PROXY TCP4 203.0.113.7 10.0.0.1 4711 80\r\n';
    const parts = [header.slice(0, 3), header.slice(3, 20), header.slice(20) + GET];
    expect(await exchange(connect(port, '127.0.0.1'), parts)).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('closes a connection without the header, with a version 2 header, or silent past the header timeout', async () => {
    const before = await rejected();
    expect(await exchange(connect(port, '127.0.0.1'), [GET])).toBe('');
    expect(await exchange(connect(port, '127.0.0.1'), [v2('203.0.113.7', 4711), GET])).toBe('');
    expect(await exchange(connect(port, '127.0.0.1'), [])).toBe('');
    expect((await rejected()) - before).toBe(3);
  });
});

describe('frontend.proxyProtocol V2 (the default)', () => {
  beforeAll(() => serve(app('{proxyProtocol: {}}')));

  it('takes the client from a binary IPv4 header', async () => {
    const answer = await exchange(connect(port, '127.0.0.1'), [
      Buffer.concat([v2('192.0.2.9', 5555), Buffer.from(GET)]),
    ]);
    expect(forwardedFor(answer)).toBe('192.0.2.9');
  });

  it('takes the client from an IPv6 header and keeps the connection address for LOCAL', async () => {
    const hex =
      '0d0a0d0a000d0a515549540a 21 21 0024 20010db8000000000000000000000007 20010db8000000000000000000000001 1267 0050';
    const six = Buffer.from(hex.replace(/ /g, ''), 'hex');
    expect(forwardedFor(await exchange(connect(port, '127.0.0.1'), [six, GET]))).toBe('2001:db8::7');
    const local = Buffer.from('0d0a0d0a000d0a515549540a20000000', 'hex');
    expect(forwardedFor(await exchange(connect(port, '127.0.0.1'), [local, GET]))).toBe('127.0.0.1');
  });

  it('gives the client to an h2c (prior knowledge) connection', async () => {
    const session = h2connect(`http://127.0.0.1:${port}`, {
      createConnection: () => {
        const raw = connect(port, '127.0.0.1');
        raw.write(v2('192.0.2.46', 6002));
        return raw;
      },
    });
    const stream = session.request({ ':path': '/app/x' });
    let body = '';
    stream.on('data', (c: Buffer) => (body += c.toString()));
    await new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
    session.close();
    expect((JSON.parse(body) as Record<string, unknown>)['x-forwarded-for']).toBe('192.0.2.46');
  });

  it('closes a version 1 header (Strict by default)', async () => {
    expect(await exchange(connect(port, '127.0.0.1'), ['PROXY TCP4 203.0.113.7 10.0.0.1 4711 80\r\n', GET])).toBe('');
  });
});

describe('frontend.proxyProtocol Optional', () => {
  beforeAll(() => serve(app('{proxyProtocol: {version: V2, mode: Optional}}')));

  it('serves a plain connection as it is, and a proxied one as its header says', async () => {
    expect(forwardedFor(await exchange(connect(port, '127.0.0.1'), [GET]))).toBe('127.0.0.1');
    const proxied = await exchange(connect(port, '127.0.0.1'), [v2('192.0.2.9', 5555), GET]);
    expect(forwardedFor(proxied)).toBe('192.0.2.9');
  });
});

describe('frontend.proxyProtocol on an HTTPS listener', () => {
  beforeAll(() => serve(httpsManifests(upstream.port, '{proxyProtocol: {version: V2}}')));

  it('reads the header before the TLS handshake and the client reaches the request', async () => {
    const raw = connect(port, '127.0.0.1');
    await new Promise((resolve) => raw.once('connect', resolve));
    raw.write(v2('192.0.2.44', 6000));
    const tls = tlsConnect({ socket: raw, servername: 'a.example.test', ca });
    const answer = await exchange(tls as unknown as Socket, [
      'GET /x HTTP/1.1\r\nHost: a.example.test\r\nConnection: close\r\n\r\n',
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(forwardedFor(answer)).toBe('192.0.2.44');
  });

  it('gives the client to HTTP/2 requests on a connection that negotiated h2', async () => {
    const session = h2connect(`https://a.example.test:${port}`, {
      createConnection: () => {
        const raw = connect(port, '127.0.0.1');
        raw.write(v2('192.0.2.45', 6001));
        return tlsConnect({ socket: raw, servername: 'a.example.test', ca, ALPNProtocols: ['h2'] });
      },
    });
    const stream = session.request({ ':path': '/x' });
    let body = '';
    stream.on('data', (c: Buffer) => (body += c.toString()));
    await new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
    session.close();
    expect((JSON.parse(body) as Record<string, unknown>)['x-forwarded-for']).toBe('192.0.2.45');
  });
});

describe('frontend.proxyProtocol with a CONNECT Tunnel', () => {
  beforeAll(() => serve(app('{proxyProtocol: {version: V1}, connect: {mode: Tunnel}}')));

  it('reads the header once: the tunnelled connection keeps the client it named and needs no header of its own', async () => {
    const answer = await exchange(connect(port, '127.0.0.1'), [
      'PROXY TCP4 203.0.113.7 10.0.0.1 4711 80\r\n',
      'CONNECT shop.test:80 HTTP/1.1\r\nHost: shop.test:80\r\n\r\n',
      GET,
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n[^]*HTTP\/1\.1 200 OK\r\n/);
    expect(forwardedFor(answer.slice(answer.indexOf('HTTP/1.1 200 OK')))).toBe('203.0.113.7');
  });
});
