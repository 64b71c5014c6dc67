// One path, matched and forwarded (issue 31): every spelling of a request target reaches routing, policy
// and the backend as the same normalised origin-form path. A guarded `/admin` route (authorization wants
// `x-admin: yes`) sits next to an open `/` route; the backend records the request line it receives.
// Unusual request lines go out over raw sockets, as an attacker would send them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

/** The open catch-all route, to the same backend as the guarded one. */
const openRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: open, namespace: default}
spec:
  parentRefs: [{name: web}]
  rules:
  - {matches: [{path: {type: PathPrefix, value: /}}], backendRefs: [{group: gw.dev, kind: GwBackend, name: up}]}
`;

interface Seen {
  line: string;
  host: string;
}

let upstream: Upstream;
let runtime: ProxyRuntime;
let port: number;
const seen: Seen[] = [];

/** Sends `head` (request line and headers, CRLF-separated, without the blank line) and reads the whole answer. */
function send(head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(`${head}\r\nconnection: close\r\n\r\n`);
  });
}

const get = (target: string, headers = 'host: web.test'): Promise<{ status: number; body: string }> =>
  send(`GET ${target} HTTP/1.1\r\n${headers}`);

beforeAll(async () => {
  upstream = await startUpstream((req: IncomingMessage, res: ServerResponse) => {
    seen.push({ line: `${req.method} ${req.url} HTTP/${req.httpVersion}`, host: req.headers.host ?? '' });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('backend');
  });
  runtime = new ProxyRuntime({ log, security: createRouteSecurity() });
  await runtime.apply(
    translatedIr(
      trafficManifests(
        upstream.port,
        [
          {
            name: 'admin',
            traffic: `{authorization: {policy: {matchExpressions: ['request.headers["x-admin"] == "yes"']}}}`,
          },
          { name: 'seen', traffic: `{authorization: {policy: {matchExpressions: ['request.path == "/seen/a/b"']}}}` },
        ],
        openRoute,
      ),
    ),
  );
  port = Object.values(runtime.boundPorts())[0] ?? 0;
});
beforeEach(() => {
  seen.length = 0;
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
});

describe('request targets that spell the guarded path are matched by it', () => {
  it.each([
    ['absolute-form', 'http://web.test/admin'],
    ['a doubled slash', '//admin'],
    ['a percent-encoded unreserved letter', '/%61dmin'],
    ['a dot-dot segment', '/x/../admin'],
    ['encoded dots', '/x/%2e%2E/admin/'],
    ['a dot segment and doubled slashes', '/./admin//panel'],
  ])('%s (%s) is refused by the /admin route and never reaches the backend', async (_what, target) => {
    const res = await get(target);
    expect(res.status).toBe(403);
    expect(seen).toEqual([]);
  });
});

describe('what is matched is what the backend receives', () => {
  it.each([
    ['http://web.test/admin', 'GET /admin HTTP/1.1'],
    ['//admin', 'GET /admin HTTP/1.1'],
    ['/%61dmin', 'GET /admin HTTP/1.1'],
    ['/x/../admin', 'GET /admin HTTP/1.1'],
    ['/admin/%7euser/./a//b/..?q=%2F&r=/../', 'GET /admin/~user/a/ HTTP/1.1'.replace(' HTTP', '?q=%2F&r=/../ HTTP')],
    ['/admin/caf%c3%a9%3a', 'GET /admin/caf%C3%A9%3A HTTP/1.1'],
  ])('%s goes out as %s when the guard allows it', async (target, line) => {
    const res = await get(target, 'host: web.test\r\nx-admin: yes');
    expect(res.status).toBe(200);
    expect(seen.map((s) => s.line)).toEqual([line]);
  });

  it('hands policy the same path: a CEL rule on request.path sees the normalised form', async () => {
    const res = await get('/x/..//seen/%61/./b');
    expect(res.status).toBe(200);
    expect(seen.map((s) => s.line)).toEqual(['GET /seen/a/b HTTP/1.1']);
  });

  it('reads an absolute-form target with an empty path as `/`', async () => {
    expect((await get('http://web.test?x=1', 'host: other.test')).status).toBe(200);
    expect(seen).toEqual([{ line: 'GET /?x=1 HTTP/1.1', host: 'web.test' }]);
  });

  it('replaces Host with the absolute-form authority (RFC 9112 §3.2.2), for routing and for the backend', async () => {
    const res = await get('http://Web.Test:8080/admin', 'host: attacker.test\r\nx-admin: yes');
    expect(res.status).toBe(200);
    expect(seen).toEqual([{ line: 'GET /admin HTTP/1.1', host: 'web.test:8080' }]);
  });
});

describe('targets that cannot be matched safely are refused', () => {
  it.each([
    ['*', 'is only allowed with OPTIONS'],
    ['/admin%2Fx', 'encoded slash (%2F)'],
    ['/x%2f..%2fadmin', 'encoded slash (%2F)'],
    ['/x%5C..%5Cadmin', 'encoded backslash (%5C)'],
    ['/x\\..\\admin', 'backslash'],
    ['/admin%zz', 'malformed percent-encoding'],
    ['ftp://web.test/admin', 'neither a path'],
    ['http://user@web.test/admin', 'userinfo'],
    ['/admin#x', 'fragment'],
  ])('GET %s answers 400 bad_request and never reaches the backend', async (target, why) => {
    const res = await get(target);
    expect(res.status).toBe(400);
    const body = JSON.parse(res.body) as { error: string; error_description: string };
    expect(body.error).toBe('bad_request');
    expect(body.error_description).toContain(why);
    expect(seen).toEqual([]);
  });

  it('keeps the query, which may carry a token, out of the error body', async () => {
    const res = await get('/a%2Fb?access_token=secret-value');
    expect(res.status).toBe(400);
    expect(res.body).not.toContain('secret-value');
  });

  it('answers OPTIONS * itself with 204, forwarding nothing', async () => {
    const res = await send('OPTIONS * HTTP/1.1\r\nhost: web.test');
    expect(res.status).toBe(204);
    expect(seen).toEqual([]);
  });
});
