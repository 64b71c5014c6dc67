import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import type { Registry } from 'prom-client';
import type { XdsServer } from '../../src/xds/server.js';
import { resourceVersion } from '../../src/xds/protocol.js';
import {
  createMemorySource,
  names,
  node,
  rawStream,
  res,
  startProxy,
  startServer,
  waitFor,
  type FakeProxy,
  type RawStream,
} from './harness.js';

describe('xds stream (plaintext, real gRPC on loopback)', () => {
  const source = createMemorySource();
  const nacks: Array<{ gateway: string; pod: string; errors: Array<{ name: string; message: string }> }> = [];
  const resolved: string[][] = [];
  let server: XdsServer;
  let registry: Registry;
  const open: Array<FakeProxy | RawStream> = [];

  beforeAll(async () => {
    ({ server, registry } = await startServer(source, {
      onNack: (gateway, pod, errors) => nacks.push({ gateway, pod, errors }),
      onResolved: (_g, _p, n) => resolved.push(n),
    }));
  });
  afterEach(() => {
    for (const o of open.splice(0)) {
      if ('client' in o) o.client.close();
      else o.close();
    }
  });
  afterAll(async () => {
    await server.close();
  });

  const proxy = () => {
    const p = startProxy(server.port);
    open.push(p);
    return p;
  };

  it('sends the whole snapshot to a new subscriber and marks it ready', async () => {
    source.set('default/gw', { 'listener/a': res('a1'), 'route/b': res('b1') });
    const p = proxy();
    await new Promise<void>((r) => p.client.once('ready', r));
    expect(p.client.ready).toBe(true);
    expect(Object.fromEntries(p.state)).toEqual({ 'listener/a': 'a1', 'route/b': 'b1' });
    expect(p.client.versions().get('listener/a')).toBe(resourceVersion(Buffer.from('a1')));
  });

  it('sends only the changed resource, then only the removal', async () => {
    source.set('default/gw', { 'listener/a': res('a1'), 'route/b': res('b1') });
    const p = proxy();
    await waitFor('snapshot', () => p.client.ready);
    source.set('default/gw', { 'listener/a': res('a1'), 'route/b': res('b2') });
    await waitFor('change', () => p.updates.length === 2);
    expect(names(p.updates[1])).toEqual({ upserts: ['route/b'], removes: [] });
    source.set('default/gw', { 'listener/a': res('a1') });
    await waitFor('removal', () => p.updates.length === 3);
    expect(names(p.updates[2])).toEqual({ upserts: [], removes: ['route/b'] });
    expect(Object.fromEntries(p.state)).toEqual({ 'listener/a': 'a1' });
  });

  it('reports a NACK with per-resource details to onNack while the other resources are applied', async () => {
    source.set('default/gw', { 'listener/a': res('a1') });
    const p = proxy();
    await waitFor('snapshot', () => p.client.ready);
    nacks.length = 0;
    p.reject.add('policy/bad');
    source.set('default/gw', { 'listener/a': res('a2'), 'policy/bad': res('x') });
    await waitFor('nack', () => nacks.length === 1);
    expect(nacks[0]).toEqual({
      gateway: 'default/gw',
      pod: 'proxy-0',
      errors: [{ name: 'policy/bad', message: 'cannot apply policy/bad' }],
    });
    expect(p.state.get('listener/a')).toBe('a2');
    expect(p.client.versions().has('policy/bad')).toBe(false);
    expect(server.proxies().find((x) => x.pod === 'proxy-0')?.rejected).toEqual(['policy/bad']);
    // The fleet view's data: the NACK with its text, and the standing refusal.
    const seen = server.proxies().find((x) => x.pod === 'proxy-0');
    expect(seen?.lastReply).toMatchObject({
      ack: 'NACK',
      version: seen?.current,
      errors: [{ name: 'policy/bad', message: 'cannot apply policy/bad' }],
    });
    expect(seen?.refusals).toEqual([{ name: 'policy/bad', message: 'cannot apply policy/bad' }]);
    expect(seen?.applied).not.toBe(seen?.current);
    const metric = await registry.getSingleMetricAsString('gw_xds_nacks_total');
    expect(metric).toMatch(/gw_xds_nacks_total\{gateway="default\/gw"\} [1-9]/);

    // A fixed version of the rejected resource clears the report.
    p.reject.clear();
    source.set('default/gw', { 'listener/a': res('a2'), 'policy/bad': res('fixed') });
    await waitFor('resolution', () => resolved.some((n) => n.includes('policy/bad')));
    expect(p.state.get('policy/bad')).toBe('fixed');
    await waitFor('ack', () => server.proxies().find((x) => x.pod === 'proxy-0')?.lastReply?.ack === 'ACK');
    const after = server.proxies().find((x) => x.pod === 'proxy-0');
    expect(after?.applied).toBe(after?.current);
    expect(after?.refusals).toEqual([]);
  });

  it('answers a subscriber holding versions with only the difference', async () => {
    source.set('default/gw', { 'listener/a': res('a1'), 'route/b': res('b1'), 'route/c': res('c1') });
    const raw = rawStream(server.port);
    open.push(raw);
    raw.send({
      node: node(),
      initialResourceVersions: {
        'listener/a': resourceVersion(Buffer.from('a1')),
        'route/b': 'stale',
        'route/gone': 'v',
      },
    });
    await waitFor('response', () => raw.responses.length === 1);
    const r = raw.responses[0]!;
    expect(r.resources.map((x) => x.name)).toEqual(['route/b', 'route/c']);
    expect(r.removedResources).toEqual(['route/gone']);
    expect(r.nonce).not.toBe('');
    raw.send({ responseNonce: r.nonce });
    // A change to another gateway does not reach this stream.
    source.set('other/gw', { 'listener/z': res('z') });
    // Then one to this gateway: the next response on the stream is that one, with nothing of the other.
    source.set('default/gw', { 'listener/a': res('a2'), 'route/b': res('b1'), 'route/c': res('c1') });
    await waitFor('second response', () => raw.responses.length >= 2);
    expect(raw.responses).toHaveLength(2);
    expect(raw.responses[1]!.resources.map((x) => x.name)).toEqual(['listener/a']);
  });

  it('bounds the NACK details a proxy can report', async () => {
    source.set('default/gw', { 'listener/a': res('a1') });
    const raw = rawStream(server.port);
    open.push(raw);
    raw.send({ node: node('default/gw', 'noisy') });
    await waitFor('response', () => raw.responses.length === 1);
    nacks.length = 0;
    const errors = Array.from({ length: 500 }, (_, i) => ({ name: `r${i}`, message: 'x'.repeat(5000) }));
    raw.send({ responseNonce: raw.responses[0]!.nonce, errors });
    await waitFor('nack', () => nacks.length === 1);
    expect(nacks[0]!.errors).toHaveLength(100);
    expect(nacks[0]!.errors[0]!.message.length).toBeLessThanOrEqual(1025);
  });

  it('sends an empty first response when the proxy already holds everything, so it becomes ready', async () => {
    source.set('default/gw', { 'listener/a': res('a1') });
    const raw = rawStream(server.port);
    open.push(raw);
    raw.send({ node: node(), initialResourceVersions: { 'listener/a': resourceVersion(Buffer.from('a1')) } });
    await waitFor('response', () => raw.responses.length === 1);
    expect(raw.responses[0]!.resources).toEqual([]);
    expect(raw.responses[0]!.removedResources).toEqual([]);
  });

  it('rejects a first request without a gateway as INVALID_ARGUMENT', async () => {
    const raw = rawStream(server.port);
    open.push(raw);
    raw.send({ node: { gatewayNamespace: '', gatewayName: '', podName: 'p', buildVersion: '' } });
    const st = await raw.status;
    expect(st.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(st.details).toContain('node.gateway_namespace');
  });

  it('coalesces a burst of changes into few pushes', async () => {
    source.set('default/gw', { 'listener/a': res('a0') });
    const p = proxy();
    await waitFor('snapshot', () => p.client.ready);
    const before = p.updates.length;
    for (let i = 1; i <= 50; i++) source.set('default/gw', { 'listener/a': res(`a${i}`) });
    await waitFor('last value', () => p.state.get('listener/a') === 'a50');
    const burst = p.updates.length - before;
    // A later change arrives as one more push, so nothing of the burst was still on its way.
    source.set('default/gw', { 'listener/a': res('after') });
    await waitFor('the change after the burst', () => p.state.get('listener/a') === 'after');
    expect(p.updates.length - before).toBe(burst + 1);
    expect(burst).toBeLessThanOrEqual(2);
  });

  it('NACKs every resource of an update whose apply throws, and keeps the previous versions', async () => {
    source.set('default/gw', { 'listener/a': res('a1') });
    const p = proxy();
    await waitFor('snapshot', () => p.client.ready);
    const held = p.client.versions().get('listener/a');
    nacks.length = 0;
    const failing = startProxy(server.port, {
      podName: 'proxy-throws',
      apply: () => {
        throw new Error('listener port in use');
      },
    });
    open.push(failing);
    await waitFor('nack', () => nacks.some((n) => n.pod === 'proxy-throws'));
    expect(nacks.find((n) => n.pod === 'proxy-throws')?.errors).toEqual([
      { name: 'listener/a', message: 'proxy failed to apply the update: listener port in use' },
    ]);
    expect(failing.client.versions().size).toBe(0);
    expect(p.client.versions().get('listener/a')).toBe(held);
  });

  it('forgets a proxy when its stream ends', async () => {
    source.set('default/gw', { 'listener/a': res('a1') });
    const p = startProxy(server.port, { podName: 'short-lived' });
    await waitFor('snapshot', () => p.client.ready);
    expect(server.proxies().map((x) => x.pod)).toContain('short-lived');
    p.client.close();
    await waitFor('disconnect seen by the server', () => !server.proxies().some((x) => x.pod === 'short-lived'));
  });

  it('counts connected proxies and pushes in the metrics registry', async () => {
    source.set('default/gw', { 'listener/a': res('a1') });
    const p = proxy();
    await waitFor('snapshot', () => p.client.ready);
    const gauge = await registry.getSingleMetricAsString('gw_xds_connected_proxies');
    expect(gauge).toMatch(/gw_xds_connected_proxies [1-9]/);
    const hist = await registry.getSingleMetricAsString('gw_xds_push_ack_seconds');
    expect(hist).toMatch(/gw_xds_push_ack_seconds_count [1-9]/);
  });
});

describe('xds readiness', () => {
  it('refuses streams with UNAVAILABLE until the source is ready, then serves them', async () => {
    const source = createMemorySource({ ready: false });
    source.set('default/gw', { 'listener/a': res('a1') });
    const { server } = await startServer(source);
    try {
      const raw = rawStream(server.port);
      raw.send({ node: node() });
      const st = await raw.status;
      raw.close();
      expect(st.code).toBe(grpc.status.UNAVAILABLE);
      expect(st.details).toContain('not synced');

      const p = startProxy(server.port);
      const refusals: number[] = [];
      p.client.on('disconnected', (status) => refusals.push(status.code));
      await waitFor('two refusals', () => refusals.length >= 2);
      expect(refusals.every((c) => c === grpc.status.UNAVAILABLE)).toBe(true);
      expect(p.client.ready).toBe(false);
      source.setReady(true);
      await waitFor('snapshot after ready', () => p.client.ready);
      p.client.close();
    } finally {
      await server.close();
    }
  });
});

describe('xds source failures', () => {
  it('keeps serving other gateways and retries on the next change when the source throws', async () => {
    const inner = createMemorySource();
    let failFor: string | undefined;
    const source = {
      ...inner,
      get: (gateway: string) => {
        if (gateway === failFor) throw new Error('translation cache corrupted');
        return inner.get(gateway);
      },
    };
    inner.set('default/gw', { 'listener/a': res('a1') });
    inner.set('other/gw', { 'listener/o': res('o1') });
    const { server } = await startServer(source as typeof inner);
    const a = startProxy(server.port, { podName: 'a' });
    const o = startProxy(server.port, { podName: 'o', gateway: 'other/gw' });
    try {
      await waitFor('both ready', () => a.client.ready && o.client.ready);
      failFor = 'default/gw';
      inner.set('default/gw', { 'listener/a': res('a2') });
      inner.set('other/gw', { 'listener/o': res('o2') });
      await waitFor('other gateway updated', () => o.state.get('listener/o') === 'o2');
      expect(a.state.get('listener/a')).toBe('a1');
      failFor = undefined;
      inner.set('default/gw', { 'listener/a': res('a3') });
      await waitFor('failed gateway updated on its next change', () => a.state.get('listener/a') === 'a3');
      expect(a.client.connected).toBe(true);
    } finally {
      a.client.close();
      o.client.close();
      await server.close();
    }
  });
});
