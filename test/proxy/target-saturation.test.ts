// A target whose request pool (256 connections) and wait queue (`--target-queue`, 0 here) are full fails
// further calls at once with a clear error, and a new session's initialize gets 503 overloaded with
// Retry-After, instead of waiting without bound (issue 22). Everything recovers when the calls finish.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { startProxy, type Started } from './harness.js';
import { targetRequestsPending } from '../../src/proxy/mcp/upstream-fetch.js';

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const init = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('a saturated target', () => {
  let target: HttpFixture;
  let proxy: Started;
  /** The held calls answer when the test calls `release`, after it has seen what a full pool does. */
  let release: () => void = () => undefined;
  const hold = new Promise<void>((resolve) => (release = resolve));
  beforeAll(async () => {
    target = await startHttpFixture({ id: 'h', json: true, hold });
    proxy = await startProxy(
      { targets: [{ name: 'h', streamableHttp: { url: target.url } }] },
      { limits: { targetQueue: 0 } },
    );
  });
  afterAll(async () => {
    release();
    await proxy?.close();
    await target?.close();
  });

  it('fails the call past the pool at once, answers a new initialize 503, and recovers', async () => {
    const origin = new URL(target.url).origin;
    const opened = await fetch(proxy.url, { method: 'POST', headers: json, body: init });
    const session = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    const call = (id: number, args: Record<string, unknown>): Promise<string> =>
      fetch(proxy.url, {
        method: 'POST',
        headers: { ...json, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: args } }),
      }).then((r) => r.text());
    // 256 held calls take every pooled connection to the target.
    // Opened in batches, each on the target before the next, so neither side's accept backlog overflows.
    const held: Promise<string>[] = [];
    for (let b = 0; b < 4; b++) {
      for (let i = 0; i < 64; i++)
        held.push(call(100 + b * 64 + i, { held: true }).catch((err: unknown) => `failed: ${String(err)}`));
      await expect.poll(() => targetRequestsPending(origin), { timeout: 60_000, interval: 50 }).toBe((b + 1) * 64);
    }
    // Every held call is still waiting for the test: this one finds the pool full.
    const refused = await call(1, { steps: 1, ms: 10 });
    expect(refused).toContain('is saturated');
    const second = await fetch(proxy.url, { method: 'POST', headers: json, body: init });
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(await second.text())).toMatchObject({ error: 'overloaded' });
    release();
    const answers = await Promise.all(held);
    expect(answers.filter((a) => a.includes('"result"'))).toHaveLength(256);
    expect(await call(2, { steps: 1, ms: 10 })).toContain('"result"');
  }, 90_000);
});
