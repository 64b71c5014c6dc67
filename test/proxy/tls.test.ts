// HTTPS binds with real TLS clients: SNI picks the listener's certificate, a snapshot swaps
// certificates for new connections without rebinding, the MCP SDK client works over HTTPS, binds
// mixing HTTP and HTTPS are refused, and no key material reaches the logs.
import { X509Certificate } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { connect as h2connect } from 'node:http2';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { connect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listener, Snapshot } from '../../src/ir/types.js';
import { ProblemError } from '../../src/problem.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';
import { listenerTlsOf, snapshotFor, stdioTarget } from './harness.js';
import { rawConnection } from './raw-connection.js';

const certDir = path.join(import.meta.dirname, 'tls-testdata');
const pem = (f: string) => readFileSync(path.join(certDir, f), 'utf8');
const ca = pem('ca.crt');
const pair = (name: string) => ({
  certChainPem: pem(`${name}.crt`),
  privateKeyPem: pem(`${name}.key`),
  source: `test ${name}`,
});

/** One HTTPS bind with listeners a.example.test, b.example.test and *.example.test, one MCP route on all. */
function httpsSnapshot(aCert = 'a', version = '1'): Snapshot {
  const snap = snapshotFor({ targets: [stdioTarget('t')] });
  const base = snap.resources.find((r) => r.listener)?.listener as Listener;
  const listener = (name: string, hostname: string, cert: string): Listener => ({
    ...base,
    name,
    hostnames: [hostname],
    protocol: 'HTTPS',
    tls: listenerTlsOf([pair(cert)]),
  });
  const route = snap.resources.find((r) => r.route)?.route;
  if (route) route.listeners = ['a', 'b', 'wild'];
  const others = snap.resources.filter((r) => !r.listener);
  return {
    version,
    resources: [
      ...others.filter((r) => r.bind),
      { kind: 'listener', listener: listener('a', 'a.example.test', aCert) },
      { kind: 'listener', listener: listener('b', 'b.example.test', 'b') },
      { kind: 'listener', listener: listener('wild', '*.example.test', 'wildcard') },
      ...others.filter((r) => !r.bind),
    ],
  };
}

const logLines: string[] = [];
const log = pino(
  { level: 'debug' },
  new Writable({
    write(chunk, _enc, cb) {
      logLines.push(String(chunk));
      cb();
    },
  }),
);
let runtime: ProxyRuntime;
let port: number;

beforeAll(async () => {
  runtime = new ProxyRuntime({ log });
  await runtime.apply(httpsSnapshot());
  port = Object.values(runtime.boundPorts())[0] as number;
});
afterAll(async () => {
  await runtime.close();
});

/** The certificate the proxy presents for `servername` (none: no SNI at all), and the open socket. */
function handshake(servername?: string): Promise<{ cert: PeerCertificate; close(): void; authorized: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port, ca, ...(servername ? { servername } : {}), rejectUnauthorized: false },
      () => {
        resolve({ cert: socket.getPeerCertificate(), authorized: socket.authorized, close: () => socket.destroy() });
      },
    );
    socket.once('error', reject);
  });
}

function fingerprint(file: string): string {
  return new X509Certificate(pem(file)).fingerprint256;
}

function httpsGet(
  host: string,
  reqPath: string,
  servername = host,
): Promise<{ status: number; cn: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, servername, path: reqPath, ca, headers: { host }, agent: false },
      (res) => {
        const cn = String((res.socket as TLSSocket).getPeerCertificate().subject.CN);
        let body = '';
        res.on('data', (c: Buffer) => {
          body += String(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, cn, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('HTTPS listeners', () => {
  it('presents the certificate of the listener the client names in SNI, exact names over the wildcard', async () => {
    for (const [name, file] of [
      ['a.example.test', 'a.crt'],
      ['b.example.test', 'b.crt'],
      ['c.example.test', 'wildcard.crt'],
      ['deep.c.example.test', 'wildcard.crt'],
    ] as const) {
      const h = await handshake(name);
      expect(h.cert.fingerprint256, name).toBe(fingerprint(file));
      h.close();
    }
    const verified = await handshake('b.example.test');
    expect(verified.authorized).toBe(true);
    verified.close();
  });

  it("gives clients without SNI, or with an unknown name, the first listener's certificate", async () => {
    for (const name of [undefined, 'other.test']) {
      const h = await handshake(name);
      expect(h.cert.fingerprint256, String(name)).toBe(fingerprint('a.crt'));
      h.close();
    }
  });

  it('serves HTTP requests over TLS with the CA-verified certificate', async () => {
    const r = await httpsGet('b.example.test', '/nothing-here');
    expect(r).toMatchObject({ status: 404, cn: 'b.example.test' });
  });

  it('answers 421 when the Host header belongs to another listener than the SNI name chose', async () => {
    const r = await httpsGet('b.example.test', '/nothing-here', 'a.example.test');
    expect(r.status).toBe(421);
    expect(JSON.parse(r.body)).toEqual({
      error: 'misdirected_request',
      error_description: expect.stringContaining('b.example.test'),
    });
    // Two names under one wildcard listener share its certificate, so either Host is fine.
    expect((await httpsGet('d.example.test', '/nothing-here', 'c.example.test')).status).toBe(404);
    expect((await httpsGet('b.example.test:443', '/nothing-here', 'b.example.test')).status).toBe(404);
  });

  it('answers 421 over HTTP/2 too, where the host is named in :authority', async () => {
    const session = h2connect(`https://127.0.0.1:${port}`, { ca, servername: 'b.example.test' });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':path': '/nothing-here', ':authority': 'a.example.test' });
        stream.on('response', (h) => resolve(Number(h[':status'])));
        stream.on('error', reject);
        stream.resume();
        stream.end();
      });
      expect(status).toBe(421);
    } finally {
      session.close();
    }
  });

  it('lists tools with the MCP SDK client over HTTPS', async () => {
    const lookup: LookupFunction = (_host, opts, cb) => {
      if ((opts as { all?: boolean }).all)
        (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address: '127.0.0.1', family: 4 },
        ]);
      else cb(null, '127.0.0.1', 4);
    };
    const dispatcher = new Agent({ connect: { ca, lookup } });
    const transport = new StreamableHTTPClientTransport(new URL(`https://a.example.test:${port}/mcp`), {
      fetch: (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>,
    });
    const client = new Client({ name: 'tls-test', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await client.close();
    await dispatcher.close();
  });

  it('swaps certificates for new connections without rebinding; open connections keep theirs', async () => {
    const before = runtime.boundPorts();
    const open = await handshake('a.example.test');
    await runtime.apply(httpsSnapshot('a2', '2'));
    expect(runtime.boundPorts()).toEqual(before);
    const fresh = await handshake('a.example.test');
    expect(fresh.cert.fingerprint256).toBe(fingerprint('a2.crt'));
    const noSni = await handshake();
    expect(noSni.cert.fingerprint256).toBe(fingerprint('a2.crt'));
    expect(open.cert.fingerprint256).toBe(fingerprint('a.crt'));
    for (const h of [open, fresh, noSni]) h.close();
    expect((await httpsGet('a.example.test', '/x')).cn).toBe('a.example.test');
    await runtime.apply(httpsSnapshot('a', '3'));
  });

  it('refuses a bind that mixes HTTP and HTTPS listeners, and keeps serving the last good snapshot', async () => {
    const snap = httpsSnapshot('a', '4');
    const b = snap.resources.find((r) => r.listener?.name === 'b')?.listener as Listener;
    b.protocol = 'HTTP';
    b.tls = null;
    await expect(runtime.apply(snap)).rejects.toThrow(
      /Listener b.*protocol.*is HTTP but bind bind\/1 already serves HTTPS listener a; one port serves either plain HTTP or HTTPS/,
    );
    const h = await handshake('b.example.test');
    expect(h.cert.fingerprint256).toBe(fingerprint('b.crt'));
    h.close();
  });

  it('refuses certificates that cannot be served, naming the listener and never the key', async () => {
    const snap = httpsSnapshot('a', '5');
    const a = snap.resources.find((r) => r.listener?.name === 'a')?.listener as Listener;
    a.tls = listenerTlsOf([{ ...pair('a'), privateKeyPem: pem('b.key') }]);
    const b = snap.resources.find((r) => r.listener?.name === 'b')?.listener as Listener;
    b.tls = listenerTlsOf([]);
    const problems = checkSnapshot(snap, 'test');
    expect(problems.map((p) => `${p.object} ${p.path}`)).toEqual([
      'Listener a tls.certificates[0]',
      'Listener b tls.certificates',
    ]);
    expect(problems[0]?.message).toMatch(/^is not a usable certificate and key \(.*mismatch.*\)$/);
    let err: unknown;
    await runtime.apply(snap).catch((e: unknown) => {
      err = e;
    });
    expect(err).toBeInstanceOf(ProblemError);
    expect(String((err as Error).message)).not.toContain('PRIVATE KEY');
  });

  it('switches a bind from HTTP to HTTPS on the same port', async () => {
    const plain = new ProxyRuntime({ log });
    try {
      const snap = snapshotFor({ targets: [stdioTarget('t')] });
      await plain.apply(snap);
      const before = plain.boundPorts();
      // A client with a kept-alive plain connection from before the switch.
      const kept = await rawConnection(Object.values(before)[0] as number);
      expect((await kept.send('/mcp')).head.toLowerCase()).toContain('connection: keep-alive');
      const bind = snap.resources.find((r) => r.bind)?.bind;
      if (bind) bind.port = Object.values(before)[0] as number;
      const l = snap.resources.find((r) => r.listener)?.listener as Listener;
      l.protocol = 'HTTPS';
      l.tls = listenerTlsOf([pair('a')]);
      await plain.apply(snap);
      expect(plain.boundPorts()).toEqual(before);
      // Its next request, on the old plaintext connection, is not served by the HTTPS listener: 421, then the
      // connection closes (the client reconnects, over TLS now).
      const again = await kept.send('/mcp');
      expect(again.head).toMatch(/^HTTP\/1\.1 421/);
      expect(again.head.toLowerCase()).toContain('connection: close');
      await kept.closed;
      const h = await new Promise<PeerCertificate>((resolve, reject) => {
        const s = connect(
          { host: '127.0.0.1', port: Object.values(before)[0] as number, ca, servername: 'a.example.test' },
          () => {
            resolve(s.getPeerCertificate());
            s.destroy();
          },
        );
        s.once('error', reject);
      });
      expect(h.subject.CN).toBe('a.example.test');
    } finally {
      await plain.close();
    }
  });

  it('never writes key material to the logs', async () => {
    // A client that does not trust the proxy's CA makes the server log a failed handshake.
    await new Promise<void>((resolve) => {
      const s = connect({ host: '127.0.0.1', port, servername: 'a.example.test' });
      s.once('error', () => resolve());
      s.once('secureConnect', () => {
        s.destroy();
        resolve();
      });
    });
    await expect.poll(() => logLines.some((l) => l.includes('TLS handshake failed'))).toBe(true);
    const all = logLines.join('');
    expect(all).not.toContain('PRIVATE KEY');
    for (const f of readdirSync(certDir).filter((x) => x.endsWith('.key'))) {
      for (const line of pem(f)
        .split('\n')
        .filter((x) => x.length > 40))
        expect(all).not.toContain(line);
    }
  });
});
