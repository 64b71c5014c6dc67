// Graceful shutdown (ProxyRuntime.drain, docs/proxy.md "Shutdown"): two replicas of one gateway behind a
// small round-robin balancer that, like Kubernetes endpoints, stops choosing a replica some time after its
// readiness turns false. One replica is drained and replaced under steady load: no request fails. Without
// the drain (closing at once, as the proxy did before) requests in flight are cut and the load sees errors.
import { request as httpRequest, Agent, createServer, type IncomingMessage, type Server } from 'node:http';
import { connect as h2Connect, type ClientHttp2Session } from 'node:http2';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import type { Snapshot } from '../../src/ir/types.js';
import { waitFor } from './harness.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

interface Replica {
  runtime: ProxyRuntime;
  port: number;
  /** What the balancer believes; it polls readiness like an endpoints controller would. */
  inRotation: boolean;
}

async function startReplica(ir: Snapshot, limits = {}): Promise<Replica> {
  const runtime = new ProxyRuntime({ log, limits });
  await runtime.apply(ir);
  return { runtime, port: Object.values(runtime.boundPorts())[0] as number, inRotation: true };
}

/** Round robin over the replicas in rotation, through one keep-alive pool, as a Service proxy would. */
function startBalancer(replicas: Replica[]): Promise<{ server: Server; port: number; stop(): void }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  let next = 0;
  const poll = setInterval(() => {
    for (const r of replicas) r.inRotation = r.runtime.ready;
  }, 100);
  const server = createServer((req, res) => {
    const live = replicas.filter((r) => r.inRotation);
    const target = live[next++ % Math.max(1, live.length)];
    if (!target) return void res.writeHead(503).end('no replica');
    const up = httpRequest(
      { host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers: req.headers, agent },
      (r: IncomingMessage) => {
        res.writeHead(r.statusCode ?? 502, { 'x-replica': String(target.port) });
        r.pipe(res);
      },
    );
    up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('replica failed')));
    req.pipe(up);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        stop: () => {
          clearInterval(poll);
          agent.destroy();
          server.close();
        },
      }),
    ),
  );
}

/** What the load has seen so far: answers per replica (by port) and every failure. */
interface LoadTally {
  ok: number;
  byReplica: Map<number, number>;
  failed: string[];
}

/** `workers` clients in a loop until `stop()`; every status and failure is counted. */
function steadyLoad(url: string, workers: number): { seen: LoadTally; stop(): Promise<LoadTally> } {
  let running = true;
  const seen: LoadTally = { ok: 0, byReplica: new Map(), failed: [] };
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      try {
        const res = await fetch(url);
        const body = await res.text();
        if (res.status !== 200) {
          seen.failed.push(`${res.status} ${body.slice(0, 80)}`);
          continue;
        }
        seen.ok++;
        const replica = Number(res.headers.get('x-replica'));
        seen.byReplica.set(replica, (seen.byReplica.get(replica) ?? 0) + 1);
      } catch (err) {
        seen.failed.push(String((err as Error).cause ?? err));
      }
    }
  });
  return {
    seen,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return seen;
    },
  };
}

/** Answers (of any outcome) the load has completed. */
const completed = (t: LoadTally): number => t.ok + t.failed.length;

/** Whether a request on a new connection to `url` is refused (the listener no longer accepts). */
function refusesNewConnections(url: string): Promise<boolean> {
  return new Promise((resolve) =>
    httpRequest(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(false));
    })
      .on('error', () => resolve(true))
      .end(),
  );
}

/** One HTTP/1.1 request on `socket` (keep-alive unless the server says otherwise): status and `connection` header, or `closed`. */
function exchange(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = (outcome: string): void => {
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = text.slice(0, end).toLowerCase();
      const length = /content-length: *(\d+)/.exec(head);
      const whole = length ? text.length >= end + 4 + Number(length[1]) : text.endsWith('0\r\n\r\n');
      if (!whole) return;
      done(`${head.split(' ')[1]} ${/\r\nconnection: *([a-z-]+)/.exec(head)?.[1] ?? 'keep-alive'}`);
    };
    const onClose = (): void => done('closed');
    socket.on('data', onData);
    socket.on('close', onClose);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  });
}

/** A request on a new connection: `refused`, or its status and `connection` header. */
function onNewConnection(port: number, path: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(
      port,
      '127.0.0.1',
      () => void exchange(socket, path).then((o) => (socket.destroy(), resolve(o))),
    );
    socket.once('error', () => resolve('refused'));
  });
}

/** An HTTP/2 (prior knowledge) GET on `session`: its status once the answer has ended. */
function h2Get(session: ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let status = 0;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('end', () => resolve(status));
    stream.on('error', reject);
    stream.resume();
  });
}

/** How long the upstream takes to answer: long enough that a drain or a close always finds requests in flight. */
const ANSWER_MS = 40;
/** How long a wait for load to flow may take: a guard only, each wait ends at its event. */
const LOADED_MS = 20_000;

describe('graceful shutdown', () => {
  let upstream: Upstream;
  let ir: Snapshot;
  /** Answers to `/app/held` wait here until the test releases them. */
  const held: (() => void)[] = [];

  beforeAll(async () => {
    // The behaviour under test: each answer takes ANSWER_MS, so a drain always finds requests in flight.
    upstream = await startUpstream((req, res) => {
      if (req.url?.startsWith('/app/forever'))
        return void res.writeHead(200, { 'content-type': 'text/plain' }).write('x');
      if (req.url?.startsWith('/app/held'))
        return void held.push(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), ANSWER_MS);
    });
    ir = translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{timeouts: {request: 30s}}' }]));
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it('replaces one of two replicas under steady load without a failed request', async () => {
    const replicas = [await startReplica(ir), await startReplica(ir)];
    const lb = await startBalancer(replicas);
    const load = steadyLoad(`http://127.0.0.1:${lb.port}/app/x`, 8);
    // Both replicas carry the load before the update starts.
    await waitFor(() => replicas.every((r) => (load.seen.byReplica.get(r.port) ?? 0) >= 5), LOADED_MS);
    const old = replicas[0]!;
    // A rolling update: the old pod drains (min delay far longer than the balancer's 100 ms polling, which a
    // loaded machine runs late), a new one starts beside it and joins the rotation once ready.
    const drained = old.runtime.drain({ minMs: 2000, maxMs: 10_000 });
    expect(old.runtime.ready).toBe(false);
    const replacement = await startReplica(ir);
    replicas.push(replacement);
    expect(await drained).toBe('drained');
    // Traffic really flows through the replacement.
    await waitFor(() => (load.seen.byReplica.get(replacement.port) ?? 0) >= 5, LOADED_MS);
    const { failed } = await load.stop();
    lb.stop();
    for (const r of replicas) await r.runtime.close();
    expect(failed).toEqual([]);
  }, 60_000);

  it('fails requests when the replica closes at once instead of draining (what the drain prevents)', async () => {
    const replicas = [await startReplica(ir), await startReplica(ir)];
    const lb = await startBalancer(replicas);
    const load = steadyLoad(`http://127.0.0.1:${lb.port}/app/x`, 8);
    await waitFor(() => replicas.every((r) => (load.seen.byReplica.get(r.port) ?? 0) >= 5), LOADED_MS);
    await replicas[0]!.runtime.close();
    // Well past the balancer's next readiness poll: 20 more answers of 40 ms each over 8 workers.
    const before = completed(load.seen);
    await waitFor(() => completed(load.seen) >= before + 20, LOADED_MS);
    const { failed } = await load.stop();
    lb.stop();
    await replicas[1]!.runtime.close();
    expect(failed.length).toBeGreaterThan(0);
  }, 60_000);

  it('answers a keep-alive connection reused as the drain begins (with Connection: close) instead of closing it under the request', async () => {
    const replica = await startReplica(ir);
    const socket = connect(replica.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    expect(await exchange(socket, '/app/x')).toBe('200 keep-alive');
    // The connection is idle now, as a pooled one between two requests of a client. The drain starts (no
    // minimum delay) and the client's next request goes out at the same moment.
    // (An idle grace far longer than a loaded machine's stall between the two requests.)
    const drained = replica.runtime.drain({ minMs: 0, maxMs: 20_000, idleGraceMs: 10_000 });
    expect(await exchange(socket, '/app/x')).toBe('200 close');
    expect(await drained).toBe('drained');
  }, 60_000);

  it('after the minimum delay keeps accepting for a late load balancer, answering each new connection once, then refuses', async () => {
    const replica = await startReplica(ir);
    const drained = replica.runtime.drain({ minMs: 2000, maxMs: 12_000 });
    // New connections until one is refused: kept alive during the minimum delay, then closed after one
    // answer during the accept window (as long as the minimum delay: many 40 ms answers), then refused.
    const seen: string[] = [];
    while (seen.at(-1) !== 'refused') seen.push(await onNewConnection(replica.port, '/app/x'));
    const phases = seen.filter((o, i) => o !== seen[i - 1]);
    expect(phases).toEqual(['200 keep-alive', '200 close', 'refused']);
    // More than the one connection a listener closing at the minimum delay could have been answering.
    expect(seen.filter((o) => o === '200 close').length).toBeGreaterThanOrEqual(3);
    expect(await drained).toBe('drained');
  }, 60_000);

  it('sends GOAWAY to HTTP/2 sessions, open ones after their streams and new ones after their first', async () => {
    const replica = await startReplica(ir);
    const url = `http://127.0.0.1:${replica.port}`;
    const before = h2Connect(url);
    const goaway = (s: ClientHttp2Session): Promise<void> => new Promise((r) => s.once('goaway', () => r()));
    const beforeGoaway = goaway(before);
    expect(await h2Get(before, '/app/x')).toBe(200);
    // A stream held across the minimum delay: its session gets GOAWAY with the stream open, and it finishes.
    const inFlight = h2Get(before, '/app/held');
    await waitFor(() => held.length === 1, LOADED_MS);
    const drained = replica.runtime.drain({ minMs: 4000, maxMs: 20_000 });
    await beforeGoaway;
    held.shift()!();
    expect(await inFlight).toBe(200);
    // A session opened during the accept window (4 s) is answered once, then told to go.
    for (let o = ''; o !== '200 close';) {
      o = await onNewConnection(replica.port, '/app/x');
      expect(o).not.toBe('refused');
    }
    const during = h2Connect(url);
    const duringGoaway = goaway(during);
    expect(await h2Get(during, '/app/x')).toBe(200);
    await duringGoaway;
    before.close();
    during.close();
    expect(await drained).toBe('drained');
  }, 60_000);

  it('keeps serving until the minimum delay, then refuses new connections, and cuts what is open at the maximum', async () => {
    const replica = await startReplica(ir);
    const base = `http://127.0.0.1:${replica.port}`;
    const forever = await new Promise<IncomingMessage>((resolve) => httpRequest(`${base}/app/forever`, resolve).end());
    const started = Date.now();
    // When the open response ended, and whether it ended whole (it never does by itself: only the cut ends it).
    const cut = new Promise<{ afterMs: number; complete: boolean }>((resolve) => {
      forever.on('close', () => resolve({ afterMs: Date.now() - started, complete: forever.complete }));
      forever.on('error', () => undefined);
      forever.resume();
    });
    // The minimum delay is long enough for a loaded machine to open the connection below within it.
    const [minMs, maxMs] = [3000, 3500];
    const drained = replica.runtime.drain({ minMs, maxMs });
    // Within the minimum delay: unready, still serving new connections.
    expect(replica.runtime.ready).toBe(false);
    expect((await fetch(`${base}/app/x`)).status).toBe(200);
    // After it (and not before): the listener no longer accepts.
    await waitFor(() => refusesNewConnections(`${base}/app/x`), LOADED_MS);
    expect(Date.now() - started).toBeGreaterThanOrEqual(minMs);
    await expect(fetch(`${base}/app/x`)).rejects.toThrow();
    expect(await drained).toBe('cut');
    const ended = await cut;
    expect(ended.complete).toBe(false);
    expect(ended.afterMs).toBeGreaterThanOrEqual(maxMs - 50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(maxMs - 50);
    // Only the cut ends the response (it never ends by itself); the bound leaves room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);
});
