// A rejected resource never hides another resource's change: the proxy applies what it accepts of a
// response and NACKs only what it refuses (serving no version of it), the server re-sends what was refused on the next change
// (and after a backoff when nothing changes), and a proxy that goes away clears what it reported.
// Fault injection: a stand-in proxy (harness) or a real ProxyRuntime wrapped so that `apply` throws
// an error naming no resource whenever a route redirects to bad.example, which the real runtime
// accepts; the stand-in is needed because every resource the translator emits is one the runtime takes.
import { afterEach, describe, expect, it } from 'vitest';
import { encodeResource } from '../../src/ir/load.js';
import type { ResourceInput, Snapshot } from '../../src/ir/types.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { createXdsApplier, type ApplyTarget } from '../../src/proxy/xds-apply.js';
import { IR_RESOURCE_TYPE } from '../../src/proxy/xds-resources.js';
import { createXdsClient, type ApplyResult, type XdsClient, type XdsUpdate } from '../../src/xds/client.js';
import type { XdsServer } from '../../src/xds/server.js';
import type { XdsResource } from '../../src/xds/snapshot.js';
import { freePort } from '../proxy/ports.js';
import { createMemorySource, log, res, startProxy, startServer, waitFor, type FakeProxy } from './harness.js';

type Nack = { gateway: string; pod: string; errors: Array<{ name: string; message: string }> };

describe('NACK isolation between resources', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  const serve = async (source = createMemorySource(), resendMs = 60_000) => {
    const nacks: Nack[] = [];
    const resolved: Array<{ pod: string; names: string[] }> = [];
    const { server } = await startServer(source, {
      onNack: (gateway, pod, errors) => nacks.push({ gateway, pod, errors }),
      onResolved: (_g, pod, names) => resolved.push({ pod, names }),
      resendBackoff: { initialMs: resendMs, maxMs: resendMs },
    });
    cleanup.push(() => server.close());
    return { source, server, nacks, resolved };
  };
  const fake = (server: XdsServer, apply?: (u: XdsUpdate) => ApplyResult): FakeProxy => {
    const p = startProxy(server.port, apply ? { apply } : {});
    cleanup.push(() => p.client.close());
    return p;
  };

  it('delivers a change that a proxy refused along with a bad resource once the bad one is fixed', async () => {
    const { source, server } = await serve();
    source.set('default/gw', { 'route/a': res('a1'), 'route/bad': res('ok') });
    // This stand-in refuses a whole response that carries `route/bad` = "bad" (the old proxy behaviour).
    const state = new Map<string, string>();
    const p = fake(server, (u) => {
      const bad = u.upserts.some((r) => r.name === 'route/bad' && Buffer.from(r.body).toString() === 'bad');
      const names = [...u.upserts.map((r) => r.name), ...u.removes];
      if (bad) return { errors: names.map((name) => ({ name, message: 'refused' })) };
      for (const r of u.upserts) state.set(r.name, Buffer.from(r.body).toString());
      return { errors: [] };
    });
    await waitFor('snapshot', () => p.client.ready);
    source.set('default/gw', { 'route/a': res('a2'), 'route/bad': res('bad') });
    // The client holds (and would announce on a reconnect) no version of what it refused.
    await waitFor('refused update', () => server.proxies()[0]?.rejected.length === 2);
    expect(p.client.versions().size).toBe(0);
    expect(state.get('route/a')).toBe('a1');

    source.set('default/gw', { 'route/a': res('a2'), 'route/bad': res('fixed') });
    await waitFor('both delivered', () => state.get('route/a') === 'a2' && state.get('route/bad') === 'fixed');
    // The proxy applies before its ACK reaches the server: wait for the ACK, not a moment.
    await waitFor('acknowledged', () => server.proxies()[0]?.rejected.length === 0);
    expect(server.proxies()[0]?.rejected).toEqual([]);
  });

  it('re-sends an unchanged rejected resource after a backoff, for a cause inside the proxy', async () => {
    const { source, server, nacks, resolved } = await serve(undefined, 100);
    source.set('default/gw', { 'route/a': res('a1'), 'route/b': res('b1') });
    const p = fake(server);
    p.reject.add('route/b');
    await waitFor('nack', () => nacks.length >= 1);
    expect(nacks[0]!.errors.map((e) => e.name)).toEqual(['route/b']);
    expect(p.state.get('route/a')).toBe('a1');
    p.reject.clear();
    await waitFor('re-sent without a change', () => p.state.get('route/b') === 'b1', 3_000);
    await waitFor('resolved', () => resolved.some((r) => r.names.includes('route/b')));
  });

  it('clears what a proxy rejected when that proxy disconnects', async () => {
    const { source, server, resolved } = await serve();
    source.set('default/gw', { 'route/a': res('a1') });
    const p = fake(server);
    p.reject.add('route/a');
    await waitFor('rejected', () => server.proxies()[0]?.rejected.length === 1);
    p.client.close();
    await waitFor('resolved on disconnect', () =>
      resolved.some((r) => r.pod === 'proxy-0' && r.names[0] === 'route/a'),
    );
  });

  it('applies another route changed in the same push when the runtime refuses one route without naming it', async () => {
    const { source, server, nacks, resolved } = await serve();
    const port = await freePort();
    const runtime = new ProxyRuntime({ log });
    cleanup.push(() => runtime.close());
    const faulty: ApplyTarget = {
      metrics: runtime.metrics,
      apply: async (snapshot: Snapshot, from?: string) => {
        if (snapshot.resources.some((r) => r.route?.filters?.redirect?.hostname === 'bad.example'))
          throw new Error('injected fault');
        return runtime.apply(snapshot, from);
      },
    };
    const set = (a: string, bad: string) =>
      source.set('default/gw', {
        'bind/b': ir({ bind: { name: 'b', port, address: '127.0.0.1' } }),
        'listener/l': ir({ listener: { name: 'l', bind: 'b', protocol: 'HTTP' } }),
        'route/a': redirect('a', a),
        'route/bad': redirect('bad', bad),
      });
    set('a1.example', 'ok.example');
    const client = realProxy(server.port, createXdsApplier(faulty, log, 'xds test'));
    cleanup.push(() => client.close());
    await waitFor('ready', () => client.ready);
    expect(await location(port, '/a')).toBe('http://a1.example/a');

    set('a2.example', 'bad.example');
    await waitFor('nack', () => nacks.length === 1);
    expect(nacks[0]!.errors).toEqual([{ name: 'route/bad', message: 'injected fault' }]);
    expect(await location(port, '/a')).toBe('http://a2.example/a');
    // A refused route is served at no version, as by a proxy that never held its previous one.
    expect(await location(port, '/bad')).toBeNull();

    set('a2.example', 'fixed.example');
    await waitFor('resolved', () => resolved.some((r) => r.names.includes('route/bad')));
    expect(await location(port, '/bad')).toBe('http://fixed.example/bad');
    expect(nacks).toHaveLength(1);
  });
});

function ir(r: ResourceInput): XdsResource {
  return { type: IR_RESOURCE_TYPE, body: encodeResource(r) };
}

function redirect(name: string, hostname: string): XdsResource {
  return ir({
    route: {
      name,
      listeners: ['l'],
      routeMatches: [{ path: { prefix: `/${name}` } }],
      filters: { redirect: { hostname, scheme: 'http' } },
    },
  } as ResourceInput);
}

function realProxy(port: number, apply: (u: XdsUpdate) => Promise<ApplyResult>): XdsClient {
  return createXdsClient({ address: `127.0.0.1:${port}`, gateway: 'default/gw', podName: 'real-0', log, apply });
}

async function location(port: number, path: string): Promise<string | null> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { redirect: 'manual' });
  return r.headers.get('location');
}
