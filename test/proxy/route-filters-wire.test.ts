// Route filters on the wire: a proxy runtime in front of a real node:http upstream that echoes what it
// received, proving header modifiers both ways, full and prefix path rewrites, Host rewrite, and
// redirects the proxy answers itself (before authentication, without contacting a backend).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { PathMatchInput, ResourceInput, RouteInput } from '../../src/ir/types.js';
import { sendError } from '../../src/proxy/http/http-error.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';

interface Echo {
  url: string;
  headers: Record<string, string | string[]>;
}

function route(
  name: string,
  matches: PathMatchInput[],
  filters: RouteInput['filters'],
  backend?: string,
): ResourceInput {
  return { route: { name, listeners: ['l'], matches, filters, backends: backend ? [{ backend, weight: 1 }] : [] } };
}

describe('route filters on the wire', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      hits++;
      req.resume();
      res
        .writeHead(200, {
          'content-type': 'application/json',
          'x-remove-me': '1',
          'x-keep': '1',
          'set-cookie': ['a=1'],
        })
        .end(JSON.stringify({ url: req.url, headers: req.headers }));
    });
    const dead = await startUpstream(() => undefined);
    await dead.close();
    const responseHeaders = {
      set: [{ name: 'cache-control', value: 'no-store' }],
      add: [
        { name: 'x-gw', value: 'yes' },
        { name: 'set-cookie', value: 'b=2' },
      ],
      remove: ['x-remove-me'],
    };
    runtime = new ProxyRuntime({
      log,
      // Every route named `locked*` rejects every caller: a redirect there must still be answered.
      security: (r) =>
        r.name.startsWith('locked')
          ? {
              auth: {
                handle: () => Promise.resolve(false),
                authenticate: (_req, res) => {
                  sendError(res, 'unauthorized', 'no');
                  return Promise.resolve(null);
                },
              },
            }
          : {},
    });
    await runtime.apply(
      normalizeSnapshot({
        version: '1',
        resources: [
          { bind: { name: 'b', port: 0, address: '127.0.0.1' } },
          { listener: { name: 'l', bind: 'b', protocol: 'HTTP' } },
          route(
            'headers',
            [{ prefix: '/headers' }],
            {
              requestHeaders: {
                set: [{ name: 'x-tenant', value: 'blue' }],
                add: [{ name: 'x-trace', value: 'gw' }],
                remove: ['x-debug'],
              },
              responseHeaders,
            },
            'echo',
          ),
          route(
            'full',
            [{ exact: '/old' }],
            { rewrite: { hostname: 'internal.example', path: { replaceFullPath: '/new' } } },
            'echo',
          ),
          route('prefix', [{ prefix: '/api/v1' }], { rewrite: { path: { replacePrefixMatch: '/v2' } } }, 'echo'),
          route('strip', [{ prefix: '/strip/' }], { rewrite: { path: { replacePrefixMatch: '' } } }, 'echo'),
          route('locked-legacy', [{ prefix: '/legacy' }], {
            redirect: {
              scheme: 'https',
              hostname: 'www.example.com',
              statusCode: 301,
              path: { replacePrefixMatch: '/v2' },
            },
          }),
          route('moved', [{ prefix: '/moved' }], { redirect: {} }),
          route(
            'locked-plain',
            [{ prefix: '/locked' }],
            { requestHeaders: { set: [{ name: 'x-a', value: '1' }] } },
            'echo',
          ),
          route('down', [{ prefix: '/down' }], { responseHeaders }, 'dead'),
          { backend: { name: 'echo', static: { host: '127.0.0.1', port: upstream.port } } },
          { backend: { name: 'dead', static: { host: '127.0.0.1', port: dead.port } } },
        ],
      }),
    );
    port = Object.values(runtime.boundPorts())[0] ?? 0;
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('sets, adds and removes request headers before forwarding, leaving the path alone', async () => {
    const res = await rawRequest(`${base}/headers/x?q=1`, {
      headers: { 'x-tenant': 'red', 'x-trace': 'client', 'x-debug': '1', 'x-other': 'kept' },
    });
    expect(res.status).toBe(200);
    const echo = JSON.parse(res.body) as Echo;
    expect(echo.url).toBe('/headers/x?q=1');
    expect(echo.headers['x-tenant']).toBe('blue');
    expect(echo.headers['x-trace']).toBe('client,gw');
    expect(echo.headers['x-debug']).toBeUndefined();
    expect(echo.headers['x-other']).toBe('kept');
  });

  it('sets, adds and removes headers on the backend response', async () => {
    const res = await rawRequest(`${base}/headers/x`, { headers: { 'cache-control': 'max-age=60' } });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-gw']).toBe('yes');
    expect(res.headers['x-remove-me']).toBeUndefined();
    expect(res.headers['x-keep']).toBe('1');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it('modifies the headers of the proxy’s own error responses on the route', async () => {
    const res = await rawRequest(`${base}/down`);
    expect(res.status).toBe(503);
    expect(res.headers['x-gw']).toBe('yes');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(res.body)).toMatchObject({ error: 'backend_unavailable' });
  });

  it('rewrites the full path (keeping the query) and the Host sent upstream', async () => {
    const res = await rawRequest(`${base}/old?q=1`, { headers: { host: 'public.example' } });
    const echo = JSON.parse(res.body) as Echo;
    expect(echo.url).toBe('/new?q=1');
    expect(echo.headers.host).toBe('internal.example');
    expect(echo.headers['x-forwarded-host']).toBe('public.example');
  });

  it('replaces the matched path prefix', async () => {
    const cases: [string, string][] = [
      ['/api/v1/users', '/v2/users'],
      ['/api/v1', '/v2'],
      ['/strip/a/b', '/a/b'],
      ['/strip', '/'],
      ['/strip/', '/'],
    ];
    for (const [sent, want] of cases) {
      const echo = JSON.parse((await rawRequest(`${base}${sent}`)).body) as Echo;
      expect(echo.url, sent).toBe(want);
      expect(echo.headers.host, 'the Host is kept without a hostname rewrite').toBe(`127.0.0.1:${port}`);
    }
  });

  it('answers a 301 redirect itself, before authentication and without contacting a backend', async () => {
    const before = hits;
    const res = await rawRequest(`${base}/legacy/docs/a?x=1`, { headers: { host: 'example.com:8080' } });
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('https://www.example.com/v2/docs/a?x=1');
    expect(res.body).toBe('');
    expect(hits).toBe(before);
    // The same authentication on a route without a redirect does answer.
    expect((await rawRequest(`${base}/locked`)).status).toBe(401);
    expect(hits).toBe(before);
  });

  it('answers 302 by default with the request’s scheme, host, port and path', async () => {
    const res = await rawRequest(`${base}/moved/x?y=2`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`http://127.0.0.1:${port}/moved/x?y=2`);
  });
});
