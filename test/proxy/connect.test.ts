// Downstream CONNECT through a real listener, per GwPolicy `frontend.connect.mode`, with real clients
// (node:net, node:tls, node:http2) and a loopback TCP echo server as the far end. Without a policy (and with
// Deny) the seed's 405 with the error body; Route: the route's policies decide, then bytes flow to the
// route's backend; Tunnel: the bytes after the 200 are served by the gateway as a new connection.
import { readFileSync } from 'node:fs';
import { connect as h2connect } from 'node:http2';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { httpsManifests } from './https-manifests.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests, frontendPolicy } from './traffic-manifests.js';

const ca = readFileSync(path.join(import.meta.dirname, 'tls-testdata', 'ca.crt'));
// `openssl passwd -apr1 -salt abcdefgh secret`
const aliceHash = '$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/';
const alice = `Basic ${Buffer.from('alice:secret').toString('base64')}`;

const connectPolicy = (mode: string): string => frontendPolicy(`{connect: {mode: ${mode}}}`, 'connect');

/** Route mode: `egress` tunnels anywhere for Basic-authenticated clients; `db.internal` to the echo server, for team db only. */
const routeManifests = (echoPort: number): string => `${connectPolicy('Route')}---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: dfp, namespace: default}
spec: {dynamicForwardProxy: {allowedDestinations: [127.0.0.0/8]}}
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: echo, namespace: default}
spec: {static: {host: 127.0.0.1, port: ${echoPort}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: egress, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules: [{matches: [{method: CONNECT}], backendRefs: [{group: gw.dev, kind: GwBackend, name: dfp}]}]
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: egress, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: egress}]
  traffic: {basicAuthentication: {users: ["alice:${aliceHash}"]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: db, namespace: default}
spec:
  parentRefs: [{name: web}]
  hostnames: [db.internal]
  rules: [{backendRefs: [{group: gw.dev, kind: GwBackend, name: echo}]}]
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: db, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: db}]
  traffic: {authorization: {policy: {matchExpressions: ['request.headers["x-team"] == "db"']}}}
`;

interface Reply {
  /** The response head (status line and headers). */
  head: string;
  /** The response body when the proxy answered and closed; '' for a tunnel. */
  body: string;
  socket: Socket;
}

/** Sends `text` and reads the reply head; an error answer is read to its end (the proxy closes). */
function send(socket: Socket, text: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let got = Buffer.alloc(0);
    const onData = (c: Buffer): void => {
      got = Buffer.concat([got, c]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = got.subarray(0, end).toString();
      if (!head.startsWith('HTTP/1.1 200 ')) return;
      socket.off('data', onData);
      socket.pause();
      if (got.length > end + 4) socket.unshift(got.subarray(end + 4));
      resolve({ head, body: '', socket });
    };
    socket.on('data', onData);
    socket.once('end', () => {
      const text = got.toString();
      const end = text.indexOf('\r\n\r\n');
      resolve({ head: text.slice(0, end), body: text.slice(end + 4), socket });
    });
    socket.once('error', reject);
    socket.write(text);
  });
}

const connectTo = (port: number, authority: string, headers = ''): Promise<Reply> =>
  send(connect(port, '127.0.0.1'), `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${headers}\r\n`);

/** Writes `text` into a tunnel and reads until `done` says the answer is complete. */
function exchange(socket: Socket, text: string, done: (got: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (c: Buffer): void => {
      got += c.toString();
      if (!done(got)) return;
      socket.off('data', onData);
      resolve(got);
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.resume();
    socket.write(text);
  });
}

const errorOf = (r: Reply): unknown => JSON.parse(r.body);

let upstream: Upstream;
let echo: Server;
let echoPort: number;
let echoed = 0;
let runtime: ProxyRuntime | undefined;
let port: number;

const serve = async (manifests: string): Promise<void> => {
  await runtime?.close();
  runtime = new ProxyRuntime({ log, security: createRouteSecurity() });
  await runtime.apply(translatedIr(manifests));
  port = Object.values(runtime.boundPorts())[0] as number;
};
const app = (extra = ''): string => trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], extra);

beforeAll(async () => {
  upstream = await startUpstream((req, res) => res.writeHead(200).end(`ok ${req.url ?? ''}`));
  echo = createServer((s) => {
    echoed++;
    s.pipe(s);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as AddressInfo).port;
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
  await new Promise((resolve) => echo?.close(resolve));
});

describe('CONNECT without a connect policy', () => {
  beforeAll(() => serve(app()));

  it('answers 405 with the error body and closes, and the listener keeps serving', async () => {
    const reply = await connectTo(port, 'example.com:443');
    expect(reply.head).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(errorOf(reply)).toEqual({
      error: 'method_not_allowed',
      error_description: 'CONNECT example.com:443 is not served: the listener has no connect policy',
    });
    expect((await fetch(`http://127.0.0.1:${port}/app/x`)).status).toBe(200);
  });

  it('answers an HTTP/2 CONNECT 405 with the error body too', async () => {
    const session = h2connect(`http://127.0.0.1:${port}`);
    const stream = session.request({ ':method': 'CONNECT', ':authority': 'example.com:443' });
    const [status, body] = await new Promise<[number, string]>((resolve, reject) => {
      let text = '';
      let code = 0;
      stream.on('response', (h) => (code = Number(h[':status'])));
      stream.on('data', (c: Buffer) => (text += c.toString()));
      stream.on('end', () => resolve([code, text]));
      stream.on('error', reject);
    });
    session.close();
    expect(status).toBe(405);
    expect(JSON.parse(body)).toMatchObject({ error: 'method_not_allowed' });
  });
});

it('CONNECT with connect mode Deny answers 405 like no policy, saying the policy denies it', async () => {
  await serve(app(connectPolicy('Deny')));
  const reply = await connectTo(port, `127.0.0.1:${echoPort}`);
  expect(reply.head).toMatch(/^HTTP\/1\.1 405 /);
  expect(errorOf(reply)).toMatchObject({ error_description: expect.stringContaining('denied') });
  expect(echoed).toBe(0);
});

describe('CONNECT with connect mode Route', () => {
  beforeAll(() => serve(app(routeManifests(echoPort))));

  it("runs the route's authentication first: no credentials, no tunnel", async () => {
    const before = echoed;
    const reply = await connectTo(port, `127.0.0.1:${echoPort}`);
    expect(reply.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(errorOf(reply)).toMatchObject({ error: 'unauthorized' });
    expect(echoed).toBe(before);
  });

  it('tunnels an authenticated CONNECT to the authority a dynamicForwardProxy backend names', async () => {
    const reply = await connectTo(port, `127.0.0.1:${echoPort}`, `Authorization: ${alice}\r\n`);
    expect(reply.head).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n/);
    expect(reply.head.toLowerCase()).not.toMatch(/content-length|transfer-encoding/);
    expect(await exchange(reply.socket, 'ping', (g) => g === 'ping')).toBe('ping');
    reply.socket.destroy();
  });

  it('runs the route authorization: a static backend is reached only by the team its rule allows', async () => {
    const denied = await connectTo(port, 'db.internal:5432');
    expect(denied.head).toMatch(/^HTTP\/1\.1 403 /);
    const reply = await connectTo(port, 'db.internal:5432', 'X-Team: db\r\n');
    expect(reply.head).toMatch(/^HTTP\/1\.1 200 /);
    // The static backend is the echo server, whatever port the authority names.
    expect(await exchange(reply.socket, 'select 1', (g) => g === 'select 1')).toBe('select 1');
    reply.socket.destroy();
  });

  it("refuses a tunnel back into the proxy's own listener", async () => {
    const reply = await connectTo(port, `127.0.0.1:${port}`, `Authorization: ${alice}\r\n`);
    expect(reply.head).toMatch(/^HTTP\/1\.1 508 /);
    expect(errorOf(reply)).toMatchObject({ error: 'loop_detected' });
  });

  it.each(['169.254.169.254:80', '2852039166:80', '10.0.0.1:5432', '[fd00::1]:443'])(
    'refuses a tunnel to %s, outside the backend allowedDestinations, with 403 before dialling',
    async (authority) => {
      const reply = await connectTo(port, authority, `Authorization: ${alice}\r\n`);
      expect(reply.head).toMatch(/^HTTP\/1\.1 403 /);
      expect(errorOf(reply)).toMatchObject({ error: 'destination_not_allowed' });
    },
  );

  it('answers 503 when the destination refuses the connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const reply = await connectTo(port, `127.0.0.1:${deadPort}`, `Authorization: ${alice}\r\n`);
    expect(reply.head).toMatch(/^HTTP\/1\.1 503 /);
    expect(errorOf(reply)).toMatchObject({ error: 'backend_unavailable' });
  });
});

describe('CONNECT with connect mode Tunnel', () => {
  beforeAll(() => serve(app(connectPolicy('Tunnel'))));

  it('serves the bytes after the 200 as a new connection: an HTTP request inside is routed by the gateway', async () => {
    const reply = await connectTo(port, 'anywhere.test:80');
    expect(reply.head).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n/);
    const answer = await exchange(reply.socket, 'GET /app/inner HTTP/1.1\r\nHost: shop.test\r\n\r\n', (g) =>
      g.includes('ok /app/inner'),
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    reply.socket.destroy();
  });

  it('serves a request the client sent right behind the CONNECT, before the 200 arrived', async () => {
    const socket = connect(port, '127.0.0.1');
    const got = await exchange(
      socket,
      'CONNECT anywhere.test:80 HTTP/1.1\r\nHost: anywhere.test:80\r\n\r\nGET /app/eager HTTP/1.1\r\nHost: shop.test\r\n\r\n',
      (g) => g.includes('ok /app/eager'),
    );
    expect(got).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n[^]*HTTP\/1\.1 200 OK\r\n/);
    socket.destroy();
  });
});

it('CONNECT with connect mode Tunnel on an HTTPS listener: the tunnelled bytes are a new TLS connection to the same listener', async () => {
  await serve(httpsManifests(upstream.port, '{connect: {mode: Tunnel}}'));
  const outer = tlsConnect({ port, host: '127.0.0.1', servername: 'a.example.test', ca });
  await new Promise((resolve, reject) => outer.once('secureConnect', resolve).once('error', reject));
  const reply = await send(
    outer as unknown as Socket,
    'CONNECT a.example.test:443 HTTP/1.1\r\nHost: a.example.test:443\r\n\r\n',
  );
  expect(reply.head).toMatch(/^HTTP\/1\.1 200 /);
  const inner = tlsConnect({ socket: outer, servername: 'a.example.test', ca });
  await new Promise((resolve, reject) => inner.once('secureConnect', resolve).once('error', reject));
  const answer = await exchange(inner as unknown as Socket, 'GET /x HTTP/1.1\r\nHost: a.example.test\r\n\r\n', (g) =>
    g.includes('ok /x'),
  );
  expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  inner.destroy();
  outer.destroy();
});
