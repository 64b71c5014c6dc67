// GwPolicy frontend connection settings, translated from manifests and served by a real runtime, checked
// with raw sockets: TCP keepalive time (read from the kernel with `ss`), the HTTP/1.1 idle timeout, the
// header-count cap (431) and the maximum connection age (closed after the current request). The proxy's
// defaults (no keepalive, 65 s idle, 2000 headers, no age) would fail each check.
import { execFileSync } from 'node:child_process';
import { connect, Socket as NetSocket, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { keepaliveProbesSupported } from '../../src/proxy/http/connection-settings.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests, frontendPolicy } from './traffic-manifests.js';

const frontend = (body: string): string => frontendPolicy(body, 'conn');

/** A raw HTTP/1.1 client on one socket: `send` writes a request and resolves its status line and headers. */
class RawClient {
  readonly socket: Socket;
  readonly closed: Promise<number>;
  private buffer = '';
  private waiting?: () => void;

  constructor(port: number) {
    const start = Date.now();
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (c: Buffer) => {
      this.buffer += c.toString();
      this.waiting?.();
    });
    this.closed = new Promise((resolve) => this.socket.on('close', () => resolve(Date.now() - start)));
    this.socket.on('error', () => undefined);
  }

  async send(path: string, headers: Record<string, string> = {}): Promise<string> {
    const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${lines.join('')}\r\n`);
    // Responses here are small, with content-length: the head and body arrive together.
    while (!/\r\n\r\n[\s\S]*ok|\r\n\r\n\{/.test(this.buffer)) await new Promise<void>((r) => (this.waiting = r));
    const head = this.buffer.split('\r\n\r\n')[0] ?? '';
    this.buffer = '';
    return head;
  }
}

/** An `ss` timer as seconds: `6.780sec`, `1min3sec`, `500ms`, or older iproute's `6.780ms` (6 s 780 ms). */
function ssSeconds(t: string): number {
  const min = /^(\d+)min/.exec(t);
  const rest = t.replace(/^\d+min/, '');
  const base = min ? Number(min[1]) * 60 : 0;
  const withMs = /^(\d+)\.(\d{3})(?:ms|sec)$/.exec(rest);
  if (withMs) return base + Number(withMs[1]) + Number(withMs[2]) / 1000;
  if (rest.endsWith('sec')) return base + Number(rest.slice(0, -3));
  if (rest.endsWith('ms')) return base + Number(rest.slice(0, -2)) / 1000;
  return base;
}

describe('frontend connection settings', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime | undefined;
  let port: number;
  const serve = async (body: string): Promise<void> => {
    await runtime?.close();
    runtime = new ProxyRuntime({ log });
    await runtime.apply(
      translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], frontend(body))),
    );
    port = Object.values(runtime.boundPorts())[0] as number;
  };

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const answer = (): void => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (req.url?.includes('slow')) setTimeout(answer, 600);
      else answer();
    });
  });
  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('tcp.keepalive.time arms the kernel keepalive timer of accepted connections with that idle time', async () => {
    await serve('{tcp: {keepalive: {time: 7s}}}');
    const c = new RawClient(port);
    expect(await c.send('/app/x')).toMatch(/^HTTP\/1.1 200/);
    // The proxy's end of the connection: local port = the listener's port.
    const out = execFileSync('ss', ['-tnoH', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' });
    const timer = /timer:\(keepalive,([^,)]+)/.exec(out)?.[1];
    expect(timer, out).toBeDefined();
    const seconds = ssSeconds(timer ?? '');
    expect(seconds).toBeGreaterThan(5);
    expect(seconds).toBeLessThanOrEqual(7);
    c.socket.destroy();
  });

  it('tcp.keepalive.interval and retries reach the socket where Node can set them (24+), else the listener is refused by name', async () => {
    const body = '{tcp: {keepalive: {time: 7s, interval: 3s, retries: 4}}}';
    if (!keepaliveProbesSupported()) {
      // Node 20 and 22 (this machine's own Node among them): refused, never applied without them.
      await expect(serve(body)).rejects.toThrow(/frontend\.tcp\.keepalive\.interval needs Node 24 or later/);
      return;
    }
    // The kernel does not report TCP_KEEPINTVL/TCP_KEEPCNT through `ss`: the call the proxy makes is the evidence.
    const calls: unknown[][] = [];
    const original = NetSocket.prototype.setKeepAlive;
    NetSocket.prototype.setKeepAlive = function (this: NetSocket, ...args: unknown[]) {
      calls.push(args);
      return (original as (...a: unknown[]) => NetSocket).apply(this, args);
    };
    try {
      await serve(body);
      const c = new RawClient(port);
      expect(await c.send('/app/x')).toMatch(/^HTTP\/1.1 200/);
      expect(calls).toContainEqual([true, 7000, 3000, 4]);
      c.socket.destroy();
    } finally {
      NetSocket.prototype.setKeepAlive = original;
    }
  });

  it('http.http1IdleTimeout closes an idle keep-alive connection after that long', async () => {
    await serve('{http: {http1IdleTimeout: 300ms}}');
    const c = new RawClient(port);
    expect(await c.send('/app/x')).toMatch(/^HTTP\/1.1 200/);
    const closedAfter = await Promise.race([c.closed, new Promise<number>((r) => setTimeout(() => r(-1), 3000))]);
    expect(closedAfter).toBeGreaterThan(250);
    c.socket.destroy();
  });

  it('http.http1MaxHeaders answers 431 to a request with more header fields, and serves one within it', async () => {
    await serve('{http: {http1MaxHeaders: 5}}');
    const c = new RawClient(port);
    expect(await c.send('/app/x', { a: '1', b: '2' })).toMatch(/^HTTP\/1.1 200/);
    const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`x-h${i}`, 'v']));
    const head = await c.send('/app/x', many);
    expect(head).toMatch(/^HTTP\/1.1 431/);
    c.socket.destroy();
  });

  it('http.maxBufferSize bounds the request body of routes that set no buffer limit of their own (413)', async () => {
    await serve('{http: {maxBufferSize: 1kb}}');
    const post = (bytes: number) =>
      fetch(`http://127.0.0.1:${port}/app/x`, { method: 'POST', body: 'a'.repeat(bytes) });
    expect((await post(900)).status).toBe(200);
    const over = await post(1500);
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: string }).error).toBe('payload_too_large');
  });

  it('http.maxConnectionDuration closes an aged connection after its current request, with Connection: close', async () => {
    await serve('{http: {maxConnectionDuration: 400ms}}');
    const idle = new RawClient(port);
    expect(await idle.send('/app/x')).toMatch(/^HTTP\/1.1 200/);
    // Idle when it ages: closed at once.
    const idleClosed = await Promise.race([idle.closed, new Promise<number>((r) => setTimeout(() => r(-1), 3000))]);
    expect(idleClosed).toBeGreaterThanOrEqual(350);
    // Busy when it ages: the response in flight is still delivered, marked Connection: close, then the connection ends.
    const busy = new RawClient(port);
    const head = await busy.send('/app/slow');
    expect(head).toMatch(/^HTTP\/1.1 200/);
    expect(head.toLowerCase()).toContain('connection: close');
    const busyClosed = await Promise.race([busy.closed, new Promise<number>((r) => setTimeout(() => r(-1), 3000))]);
    expect(busyClosed).toBeGreaterThan(0);
  });
});
