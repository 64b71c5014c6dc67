// GwPolicy `frontend.http.maxConcurrentRequests` and `frontend.tcp.maxConnections`, translated from
// manifests and served by a real runtime: a request over the cap gets 503, a connection over the cap is
// closed. Each check fails if its field were skipped.
import { connect, type Socket } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

const FRONTEND = `
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: caps, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend:
    http: {maxConcurrentRequests: 2}
    tcp: {maxConnections: 4}
`;

describe('frontend caps', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let port: number;
  const held: (() => void)[] = [];

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const answer = (): void => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (req.url?.includes('hold')) held.push(answer);
      else answer();
    });
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], FRONTEND)));
    port = Object.values(runtime.boundPorts())[0] as number;
  });
  afterAll(async () => {
    for (const a of held.splice(0)) a();
    await runtime?.close();
    await upstream?.close();
  });

  it('answers 503 overloaded past maxConcurrentRequests in flight, and serves again once they finish', async () => {
    // Its own pool, closed at the end, so its keep-alive connections do not count in the next test.
    const agent = new Agent();
    const get = (path: string) => undiciFetch(`http://127.0.0.1:${port}${path}`, { dispatcher: agent });
    const a = get('/app/hold');
    const b = get('/app/hold');
    await expect.poll(() => held.length).toBe(2);
    const over = await get('/app/x');
    expect(over.status).toBe(503);
    expect(((await over.json()) as { error: string }).error).toBe('overloaded');
    for (const answer of held.splice(0)) answer();
    expect((await a).status).toBe(200);
    expect((await b).status).toBe(200);
    expect((await get('/app/x')).status).toBe(200);
    await agent.close();
  });

  it("closes connections past maxConnections on the listener's port, and accepts again when one ends", async () => {
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => resolve(s));
        s.on('error', reject);
      });
    // A served request proves a connection is really held open and counted.
    const request = (s: Socket): Promise<string> =>
      new Promise((resolve) => {
        let out = '';
        s.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('\r\n\r\n')) resolve(out.split('\r\n')[0] ?? '');
        });
        s.on('close', () => resolve(out.split('\r\n')[0] || 'closed'));
        s.write('GET /app/x HTTP/1.1\r\nHost: x\r\n\r\n');
      });
    const sockets = [await open(), await open(), await open(), await open()];
    for (const s of sockets) expect(await request(s)).toBe('HTTP/1.1 200 OK');
    const fifth = await open();
    expect(await request(fifth)).toBe('closed');
    sockets[0]!.destroy();
    // The slot frees once the proxy has seen the close: a new connection is served again.
    const tried: Socket[] = [];
    await expect
      .poll(async () => {
        const s = await open();
        tried.push(s);
        return request(s);
      })
      .toBe('HTTP/1.1 200 OK');
    for (const s of [...sockets, ...tried]) s.destroy();
  });
});
