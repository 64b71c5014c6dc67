// A 2026-07-28 target's server/discover answer kept by the proxy as the target's caching controls allow
// (src/proxy/mcp/discover-cache.ts): the rules with a clock of the test's own, then through a real proxy
// in front of the SDK 2.4 server, counting the discover requests the target gets, with real JWTs for
// callers whose private answers must never be served to one another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscoverCache, sentKey, type Discovered } from '../../src/proxy/mcp/discover-cache.js';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { startModernFixture, type ModernFixture, type ModernFixtureOptions } from '../fixtures/mcp-2026-server.js';
import { startProxy, type Started } from './harness.js';
import { startJwtCallers, type JwtCallers } from './jwt-callers.js';
import { post2026 } from './modern-client.js';

const answer: Discovered = {
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  serverInfo: undefined,
  instructions: undefined,
};

describe('the discover cache rules', () => {
  let now = 1_000;
  const cache = new DiscoverCache({ now: () => now, maxTtlMs: 60_000, maxEntries: 2 });
  const target = {};
  const sent = sentKey({}, { name: 'c', version: '1' });

  it('keeps a public answer for its ttl, for every caller, and nothing with a ttl of 0 or an unknown scope', () => {
    expect(cache.put(target, sent, undefined, { ttlMs: 0, cacheScope: 'public' }, answer)).toBe(false);
    expect(cache.put(target, sent, undefined, { ttlMs: 5_000, cacheScope: 'shared' }, answer)).toBe(false);
    expect(cache.put(target, sent, undefined, { ttlMs: '5000', cacheScope: 'public' }, answer)).toBe(false);
    expect(cache.put(target, sent, undefined, { ttlMs: 5_000, cacheScope: 'public' }, answer)).toBe(true);
    expect(cache.get(target, sent, undefined)).toBe(answer);
    expect(cache.get(target, sent, 'sub iss bob')).toBe(answer);
    now += 5_000;
    expect(cache.get(target, sent, undefined)).toBeUndefined();
  });

  it('keeps a private answer for its caller alone, and none for a caller without a subject', () => {
    expect(cache.put(target, sent, undefined, { ttlMs: 5_000, cacheScope: 'private' }, answer)).toBe(false);
    expect(cache.put(target, sent, 'sub iss alice', { ttlMs: 5_000, cacheScope: 'private' }, answer)).toBe(true);
    expect(cache.get(target, sent, 'sub iss alice')).toBe(answer);
    expect(cache.get(target, sent, 'sub iss bob')).toBeUndefined();
    expect(cache.get(target, sent, undefined)).toBeUndefined();
  });

  it('keys by what the target was sent and by target, caps the ttl, bounds the entries and forgets a target', () => {
    const other = sentKey({ sampling: {} }, { name: 'c', version: '1' });
    cache.put(target, sent, undefined, { ttlMs: 3_600_000, cacheScope: 'public' }, answer);
    expect(cache.get(target, other, undefined)).toBeUndefined();
    expect(cache.get({}, sent, undefined)).toBeUndefined();
    now += 60_000; // the cap, not the target's hour
    expect(cache.get(target, sent, undefined)).toBeUndefined();
    cache.put(target, sent, undefined, { ttlMs: 5_000, cacheScope: 'public' }, answer);
    cache.put(target, other, undefined, { ttlMs: 5_000, cacheScope: 'public' }, answer);
    cache.put(target, sentKey({ roots: {} }, {}), undefined, { ttlMs: 5_000, cacheScope: 'public' }, answer);
    expect(cache.get(target, sent, undefined)).toBeUndefined(); // the oldest made room
    expect(cache.get(target, other, undefined)).toBe(answer);
    cache.forget(target);
    expect(cache.get(target, other, undefined)).toBeUndefined();
  });
});

const discovers = (f: ModernFixture): number => f.posts.filter((p) => p.method === 'server/discover').length;
const echo = (url: string, text: string, headers: Record<string, string> = {}, caps: Record<string, unknown> = {}) =>
  post2026(url, 'tools/call', { name: 'echo', arguments: { text } }, { 'mcp-name': 'echo', ...headers }, caps);

describe('stateless calls through the proxy', () => {
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((o) => o.close()));
  });
  async function setUp(
    cacheHints: ModernFixtureOptions['cacheHints'],
  ): Promise<{ target: ModernFixture; proxy: Started }> {
    const target = await startModernFixture({ id: 't', ...(cacheHints ? { cacheHints } : {}) });
    const proxy = await startProxy({ targets: [{ name: 't', streamableHttp: { url: target.url } }] });
    opened.push(proxy, target);
    return { target, proxy };
  }

  it('asks the target server/discover once while its public answer is fresh, again for other capabilities', async () => {
    const { target, proxy } = await setUp({ 'server/discover': { ttlMs: 60_000, cacheScope: 'public' } });
    for (const text of ['a', 'b', 'c']) expect((await echo(proxy.url, text)).body).toMatchObject({ result: {} });
    expect(discovers(target)).toBe(1);
    expect(target.posts.filter((p) => p.method === 'tools/call')).toHaveLength(3);
    await echo(proxy.url, 'd', {}, { sampling: {} });
    expect(discovers(target)).toBe(2);
    // The client still gets the proxy's answer marked uncacheable: the proxy keeps it, the client does not.
    const found = await post2026(proxy.url, 'server/discover', {}, {}, {});
    expect(found.body.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(discovers(target)).toBe(2);
  });

  it('asks again on every request when the target says ttl 0 (the SDK default)', async () => {
    const { target, proxy } = await setUp(undefined);
    for (const text of ['a', 'b']) await echo(proxy.url, text);
    expect(discovers(target)).toBe(2);
  });

  it('keeps no private answer for anonymous callers, who cannot be told apart', async () => {
    const { target, proxy } = await setUp({ 'server/discover': { ttlMs: 60_000, cacheScope: 'private' } });
    for (const text of ['a', 'b']) await echo(proxy.url, text);
    expect(discovers(target)).toBe(2);
  });

  it('asks the target again once a call with its cached answer failed (a restarted target)', async () => {
    const hints = { 'server/discover': { ttlMs: 60_000, cacheScope: 'public' as const } };
    const first = await startModernFixture({ id: 't', cacheHints: hints });
    const port = Number(new URL(first.url).port);
    const proxy = await startProxy({ targets: [{ name: 't', streamableHttp: { url: first.url } }] });
    opened.push(proxy);
    await echo(proxy.url, 'a');
    await first.close();
    expect((await echo(proxy.url, 'b')).body).toHaveProperty('error');
    const again = await startModernFixture({ id: 't', cacheHints: hints, port });
    opened.push(again);
    expect((await echo(proxy.url, 'c')).body).toMatchObject({ result: { content: [{ text: 't:c' }] } });
    expect(discovers(again)).toBe(1);
  });
});

describe('private answers and callers', () => {
  let callers: JwtCallers;
  let target: ModernFixture;
  let proxy: Started;
  const bearer = async (sub: string) => ({ authorization: `Bearer ${await callers.token({ sub })}` });

  beforeAll(async () => {
    callers = await startJwtCallers();
    const cacheHints = { 'server/discover': { ttlMs: 60_000, cacheScope: 'private' as const } };
    target = await startModernFixture({ id: 't', cacheHints });
    proxy = await startProxy(
      {
        targets: [{ name: 't', streamableHttp: { url: target.url } }],
        policies: { mcpAuthentication: callers.policy },
      },
      { security: createRouteSecurity() },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([target?.close(), callers?.close()]);
  });

  it('serves a private answer again to the caller it was given for, never to another caller', async () => {
    const alice = await bearer('alice');
    const bob = await bearer('bob');
    expect((await echo(proxy.url, 'a1', alice)).body).toMatchObject({ result: { content: [{ text: 't:a1' }] } });
    await echo(proxy.url, 'a2', alice);
    expect(discovers(target)).toBe(1);
    expect((await echo(proxy.url, 'b1', bob)).body).toMatchObject({ result: { content: [{ text: 't:b1' }] } });
    expect(discovers(target)).toBe(2);
    await echo(proxy.url, 'b2', bob);
    await echo(proxy.url, 'a3', alice);
    expect(discovers(target)).toBe(2);
  });
});
