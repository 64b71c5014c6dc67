// Real HTTP through the proxy runtime: routes on one listener that differ only by a header or by the
// method each reach their own MCP backend (SDK fixture servers over streamable HTTP).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { ResourceInput, RouteMatchInput } from '../../src/ir/types.js';
import { ProblemError } from '../../src/problem.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { connectClient, textOf } from './harness.js';

const fixtures = new Map<string, HttpFixture>();
let runtime: ProxyRuntime;
let base = '';

function route(name: string, created: string, match: RouteMatchInput): ResourceInput[] {
  const fx = fixtures.get(name);
  if (!fx) throw new Error(`no fixture ${name}`);
  return [
    {
      backend: {
        name: `backend/${name}`,
        mcp: { targets: [{ name, remote: { url: fx.url, protocol: 'STREAMABLE_HTTP' } }] },
      },
    },
    {
      route: {
        name: `route/${name}`,
        listeners: ['listener/main'],
        routeMatches: [match],
        backends: [{ backend: `backend/${name}`, weight: 1 }],
        order: { created, key: `default/${name}`, rule: 0 },
      },
    },
  ];
}

function snapshot(extra: ResourceInput[]) {
  return normalizeSnapshot({
    version: '1',
    resources: [
      { bind: { name: 'bind/main', port: 0, address: '127.0.0.1' } },
      { listener: { name: 'listener/main', bind: 'bind/main', hostnames: [], protocol: 'HTTP' } },
      ...route('plain', '2020-01-01T00:00:00.000Z', { path: { exact: '/mcp' } }),
      ...route('tenant-b', '2026-01-01T00:00:00.000Z', {
        path: { exact: '/mcp' },
        headers: [{ name: 'x-tenant', exact: 'b' }],
      }),
      ...route('any-method', '2020-01-01T00:00:00.000Z', { path: { exact: '/tools' } }),
      ...route('post-only', '2026-01-01T00:00:00.000Z', { path: { exact: '/tools' }, method: 'POST' }),
      ...extra,
    ],
  });
}

beforeAll(async () => {
  for (const id of ['plain', 'tenant-b', 'any-method', 'post-only']) fixtures.set(id, await startHttpFixture({ id }));
  runtime = new ProxyRuntime({ log: pino({ level: process.env.TEST_LOG ?? 'silent' }) });
  // The routes that should lose are the older ones, so only the match itself can make the newer win.
  await runtime.apply(snapshot([]));
  base = `http://127.0.0.1:${runtime.boundPorts()['bind/main']}`;
});

afterAll(async () => {
  await runtime?.close();
  await Promise.all([...fixtures.values()].map((f) => f.close()));
});

async function echoThrough(path: string, headers: Record<string, string> = {}): Promise<string> {
  const { client } = await connectClient(`${base}${path}`, {}, headers);
  try {
    return textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }));
  } finally {
    await client.close();
  }
}

describe('route selection in the proxy runtime', () => {
  it('sends requests without the header to the route without header matches', async () => {
    expect(await echoThrough('/mcp')).toBe('plain:hi');
  });

  it('sends requests with a matching header, in any letter case of its name, to the header route', async () => {
    expect(await echoThrough('/mcp', { 'X-Tenant': 'b' })).toBe('tenant-b:hi');
  });

  it('keeps a header value that does not match on the route without header matches', async () => {
    expect(await echoThrough('/mcp', { 'x-tenant': 'B' })).toBe('plain:hi');
  });

  it('sends POST requests to the route that matches the method', async () => {
    expect(await echoThrough('/tools')).toBe('post-only:hi');
  });

  it('sends other methods on the same path to the route without a method match', async () => {
    // GET reaches the MCP endpoint of the method-less route (no session yet), not the no-route 404.
    const res = await fetch(`${base}/tools`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'bad_request',
      error_description: 'the mcp-session-id header is required after initialize',
    });
    const put = await fetch(`${base}/tools`, { method: 'PUT' });
    expect(put.status).toBe(405);
  });

  it('rejects a snapshot with an invalid regex and keeps routing by the previous one', async () => {
    const bad = snapshot([
      {
        route: {
          name: 'route/bad',
          listeners: ['listener/main'],
          backends: [{ backend: 'backend/plain', weight: 1 }],
          routeMatches: [{ path: { prefix: '/' }, queryParams: [{ name: 'q', regex: '(' }] }],
        },
      },
    ]);
    const err = await runtime.apply(bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProblemError);
    expect((err as ProblemError).message).toMatch(
      /^snapshot: Route route\/bad: routeMatches\[0\]\.queryParams\[0\]\.regex: is not a valid regular expression: /,
    );
    expect(await echoThrough('/mcp', { 'x-tenant': 'b' })).toBe('tenant-b:hi');
  });

  it('answers a request no route matches with a JSON 404', async () => {
    const res = await fetch(`${base}/elsewhere`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: 'not_found',
      error_description: expect.stringMatching(/^no route for \/elsewhere; MCP is served at \/\S+/),
    });
  });
});
