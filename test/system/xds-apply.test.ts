// The proxy's side of an xDS update, driven directly (no stream): what is applied, what is NACKed and
// with which message, and that the runtime keeps serving the previous version of a rejected resource.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSync, type MessageTypeDefinition } from '@grpc/proto-loader';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResourceInput } from '../../src/ir/types.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { createXdsApplier } from '../../src/proxy/xds-config.js';
import { IR_RESOURCE_TYPE, planUpdate } from '../../src/proxy/xds-resources.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { freePort, initializeStatus, log } from './harness.js';

const protoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../proto');
const codec = loadSync('gw/ir/v1/ir.proto', {
  includeDirs: [protoRoot],
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
})['gw.ir.v1.Resource'] as MessageTypeDefinition<ResourceInput, object>;

const enc = (name: string, r: ResourceInput, type = IR_RESOURCE_TYPE) => ({
  name,
  type,
  version: name,
  body: codec.serialize(r),
});

function basic(port: number, targetUrl: string, routePath = '/mcp') {
  return [
    enc('bind/b', { bind: { name: 'b', port, address: '127.0.0.1' } }),
    enc('listener/l', { listener: { name: 'l', bind: 'b', protocol: 'HTTP' } }),
    enc('route/r', {
      route: {
        name: 'r',
        listeners: ['l'],
        matches: [{ prefix: routePath }],
        backends: [{ backend: 'mcp', weight: 1 }],
      },
    }),
    enc('backend/mcp', {
      backend: {
        name: 'mcp',
        mcp: { targets: [{ name: 'fx', remote: { url: targetUrl, protocol: 'STREAMABLE_HTTP' } }] },
      },
    }),
  ];
}

describe('applying xDS updates to the proxy runtime', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  it('NACKs an undecodable body and a resource type it does not read, and applies the rest (models included)', () => {
    const plan = planUpdate(
      new Map(),
      {
        upserts: [
          ...basic(1, 'http://127.0.0.1:1/mcp'),
          { name: 'backend/garbage', type: IR_RESOURCE_TYPE, body: new Uint8Array([0xff, 0xff, 0xff]) },
          enc('model/m', { model: { name: 'm', parents: ['l'], match: { exact: 'm' } } }),
          { name: 'other/x', type: 'example.v1.Other', body: new Uint8Array() },
        ],
        removes: [],
      },
      'xds test',
    );
    expect([...plan.next.keys()].sort()).toEqual(['backend/mcp', 'bind/b', 'listener/l', 'model/m', 'route/r']);
    expect(Object.fromEntries(plan.errors.map((e) => [e.name, e.message]))).toEqual({
      'backend/garbage': expect.stringContaining('body is not a valid gw.ir.v1.Resource'),
      'other/x': 'resource type example.v1.Other is not one this proxy reads (expected gw.ir.v1.Resource)',
    });
  });

  it('rejects a route left dangling by its rejected backend and serves no version of either', () => {
    const first = planUpdate(new Map(), { upserts: basic(1, 'http://127.0.0.1:1/mcp'), removes: [] }, 'xds test');
    const next = planUpdate(
      first.next,
      {
        upserts: [
          enc('backend/ai', { backend: { name: 'ai', ai: {} } }), // no priority group: rejected
          enc('route/r', {
            route: {
              name: 'r',
              listeners: ['l'],
              matches: [{ prefix: '/v2' }],
              backends: [{ backend: 'ai', weight: 1 }],
            },
          }),
        ],
        removes: [],
      },
      'xds test',
    );
    expect(next.errors.map((e) => e.name).sort()).toEqual(['backend/ai', 'route/r']);
    expect(next.errors.find((e) => e.name === 'backend/ai')?.message).toBe(
      'ai.groups: must have at least one priority group',
    );
    // What is served depends on the update's resources alone: a fresh proxy would hold neither.
    expect(next.next.has('route/r')).toBe(false);
    expect(next.next.has('backend/ai')).toBe(false);
    expect(next.dropped).toEqual([]);
  });

  it('explains a dangling route against what the proxy ends up holding, whatever it held before', async () => {
    const runtime = (name: string) => {
      const r = new ProxyRuntime({ log });
      cleanup.push(() => r.close());
      return createXdsApplier(r, log, name);
    };
    const blocker = new ProxyRuntime({ log });
    cleanup.push(() => blocker.close());
    const taken = await freePort();
    await blocker.apply({
      version: 'x',
      resources: [{ kind: 'bind', bind: { name: 'held', port: taken, address: '127.0.0.1' } }],
    });
    // The final update: the bind moves to a taken port and the backend becomes one the proxy refuses.
    const final = [
      enc('bind/b', { bind: { name: 'b', port: taken, address: '127.0.0.1' } }),
      enc('backend/mcp', { backend: { name: 'mcp', ai: {} } }),
    ];
    const seasoned = runtime('xds test');
    expect(await seasoned({ upserts: basic(await freePort(), 'http://127.0.0.1:1/mcp'), removes: [] })).toEqual({
      errors: [],
      dropped: [],
    });
    const afterHistory = await seasoned({ upserts: final, removes: [] });
    const fresh = await runtime('xds test')({
      upserts: [...basic(1, 'http://127.0.0.1:1/mcp').filter((u) => !final.some((f) => f.name === u.name)), ...final],
      removes: [],
    });
    const routeMessage = (r: {
      errors: { name: string; message: string }[];
      dropped?: { name: string; message: string }[];
    }) => [...r.errors, ...(r.dropped ?? [])].find((e) => e.name === 'route/r')?.message;
    const expected =
      'listeners[0]: refers to listener l, which does not exist; backends[0].backend: refers to backend mcp, which does not exist';
    expect(routeMessage(afterHistory)).toBe(expected);
    expect(routeMessage(fresh)).toBe(expected);
  });

  it('closes once however often close is called, with every client of the runtime closed', async () => {
    const runtime = new ProxyRuntime({ log });
    const port = await freePort();
    expect(
      await createXdsApplier(runtime, log, 'xds test')({ upserts: basic(port, 'http://127.0.0.1:1/mcp'), removes: [] }),
    ).toEqual({ errors: [], dropped: [] });
    await Promise.all([runtime.close(), runtime.close()]);
    await expect(runtime.close()).resolves.toBeUndefined();
    await expect(fetch(`http://127.0.0.1:${port}/mcp`)).rejects.toThrow();
  });

  it('serves the applied part and NACKs a bind whose port is taken', async () => {
    const fixture: HttpFixture = await startHttpFixture({ id: 'apply' });
    const runtime = new ProxyRuntime({ log });
    cleanup.push(
      () => runtime.close(),
      () => fixture.close(),
    );
    const apply = createXdsApplier(runtime, log, 'xds test');
    const port = await freePort();
    expect(await apply({ upserts: basic(port, fixture.url), removes: [] })).toEqual({ errors: [], dropped: [] });
    expect(await initializeStatus(`http://127.0.0.1:${port}/mcp`)).toBe(200);

    // A second bind on a port another runtime holds: that bind (and what hangs on it) is NACKed, the route change applies.
    const blocker = new ProxyRuntime({ log });
    cleanup.push(() => blocker.close());
    const taken = await freePort();
    await blocker.apply({
      version: 'x',
      resources: [{ kind: 'bind', bind: { name: 'held', port: taken, address: '127.0.0.1' } }],
    });
    const result = await apply({
      upserts: [
        enc('bind/b2', { bind: { name: 'b2', port: taken, address: '127.0.0.1' } }),
        enc('listener/l2', { listener: { name: 'l2', bind: 'b2', protocol: 'HTTP' } }),
        enc('route/r', {
          route: {
            name: 'r',
            listeners: ['l'],
            matches: [{ prefix: '/moved' }],
            backends: [{ backend: 'mcp', weight: 1 }],
          },
        }),
      ],
      removes: [],
    });
    expect(result.errors.map((e) => e.name).sort()).toEqual(['bind/b2', 'listener/l2']);
    expect(result.errors.find((e) => e.name === 'bind/b2')?.message).toContain('EADDRINUSE');
    expect(await initializeStatus(`http://127.0.0.1:${port}/moved`)).toBe(200);
    expect(runtime.ready).toBe(true);
  });
});
