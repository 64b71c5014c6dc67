// The server's record of what a proxy holds follows the proxy's NACKs, not what it was sent: resources
// the proxy refused or dropped are sent again once their cause may have gone. Driven over the raw
// protocol, so each reply (and its timing against later pushes) is the test's to choose. The re-send
// timer is set to a minute throughout: everything asserted here arrives without it.
import { afterEach, describe, expect, it } from 'vitest';
import type { ResourceRefusal } from '../../src/xds/protocol.js';
import { createMemorySource, names, node, rawStream, res, startServer, waitFor, type RawStream } from './harness.js';

describe('what a proxy lacks is sent again', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  const setup = async () => {
    const source = createMemorySource();
    const nacks: ResourceRefusal[][] = [];
    const resolved: string[][] = [];
    const { server } = await startServer(source, {
      onNack: (_g, _p, errors) => nacks.push(errors),
      onResolved: (_g, _p, n) => resolved.push(n),
      resendBackoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    cleanup.push(() => server.close());
    const subscribe = async (): Promise<RawStream> => {
      const s = rawStream(server.port);
      cleanup.push(() => s.close());
      s.send({ node: node() });
      await waitFor('first response', () => s.responses.length === 1);
      s.send({ responseNonce: s.responses[0]!.nonce });
      return s;
    };
    return { source, nacks, resolved, subscribe };
  };

  it('re-sends a resource the proxy reports dropped with the next change, though that change does not touch it', async () => {
    const { source, nacks, resolved, subscribe } = await setup();
    source.set('default/gw', { 'bind/a': res('1'), 'route/r': res('r') });
    const s = await subscribe();

    source.set('default/gw', { 'bind/b': res('taken'), 'route/r': res('r') });
    await waitFor('second response', () => s.responses.length === 2);
    s.send({
      responseNonce: s.responses[1]!.nonce,
      errors: [{ name: 'bind/b', message: 'port taken' }],
      dropped: [{ name: 'route/r', message: 'its listener was refused' }],
    });
    await waitFor('NACK reported', () => nacks.length === 1);
    expect(nacks[0]).toEqual([
      { name: 'bind/b', message: 'port taken' },
      { name: 'route/r', message: 'its listener was refused', dropped: true },
    ]);

    source.set('default/gw', { 'bind/a': res('1'), 'route/r': res('r') });
    await waitFor('third response', () => s.responses.length === 3);
    const third = s.responses[2]!;
    expect(names({ upserts: third.resources, removes: third.removedResources })).toEqual({
      upserts: ['bind/a', 'route/r'],
      removes: ['bind/b'],
    });
    s.send({ responseNonce: third.nonce });
    await waitFor('resolved', () => resolved.flat().includes('route/r'));
  });

  it('re-sends at once what a proxy refused of an older snapshot, since later pushes were built without knowing', async () => {
    const { source, subscribe } = await setup();
    source.set('default/gw', { 'bind/a': res('1'), 'route/r': res('r') });
    const s = await subscribe();

    // Two changes in flight: the port is moved to a taken one, then back, before the proxy answers.
    source.set('default/gw', { 'bind/b': res('taken'), 'route/r': res('r') });
    await waitFor('second response', () => s.responses.length === 2);
    source.set('default/gw', { 'bind/a': res('1'), 'route/r': res('r') });
    await waitFor('third response', () => s.responses.length === 3);
    expect(s.responses[2]!.resources.map((r) => r.name)).toEqual(['bind/a']);

    s.send({
      responseNonce: s.responses[1]!.nonce,
      errors: [{ name: 'bind/b', message: 'port taken' }],
      dropped: [{ name: 'route/r', message: 'its listener was refused' }],
    });
    await waitFor('the dropped route sent again', () => s.responses.length === 4);
    expect(s.responses[3]!.resources.map((r) => r.name)).toContain('route/r');
  });

  it('heeds a NACK of a response it stopped tracking (more than 64 unanswered)', async () => {
    const { source, nacks, subscribe } = await setup();
    source.set('default/gw', { 'route/r': res('r0') });
    const s = await subscribe();
    for (let i = 1; i <= 65; i++) {
      source.set('default/gw', { 'route/r': res(`r${i}`) });
      await waitFor(`response ${i + 1}`, () => s.responses.length === i + 1);
    }
    // The second response's nonce is forgotten by now; its NACK still says the proxy lacks route/r.
    s.send({ responseNonce: s.responses[1]!.nonce, errors: [{ name: 'route/r', message: 'refused' }] });
    await waitFor('NACK reported', () => nacks.length === 1);
    await waitFor('route/r sent again', () => s.responses.length === 67);
    expect(s.responses[66]!.resources.map((r) => r.name)).toEqual(['route/r']);
  });

  it('removes a resource the proxy still holds after a whole response was refused, once it is gone from the snapshot', async () => {
    const { source, subscribe } = await setup();
    source.set('default/gw', { 'route/a': res('a'), 'route/b': res('b') });
    const s = await subscribe();
    source.set('default/gw', { 'route/a': res('a') });
    await waitFor('removal', () => s.responses.length === 2);
    // The proxy could apply nothing of it: it still holds route/b.
    s.send({ responseNonce: s.responses[1]!.nonce, errors: [{ name: 'route/b', message: 'apply failed' }] });
    source.set('default/gw', { 'route/a': res('a2') });
    await waitFor('next change', () => s.responses.length === 3);
    expect(s.responses[2]!.removedResources).toEqual(['route/b']);
  });
});
