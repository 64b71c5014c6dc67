// A target whose request pool (256 connections) and wait queue (`--target-queue`, 0 here) are full fails
// further calls at once with a clear error, and a new session's initialize gets 503 overloaded with
// Retry-After, instead of waiting without bound (issue 22). Everything recovers when the calls finish.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { startProxy, type Started } from './harness.js';
import { targetRequestsPending } from '../../src/proxy/mcp/upstream-fetch.js';

// Long enough that a loaded machine (CI ran this at load average 8 on 2 cores, where opening the 256
// calls took over 6 s) opens all of them well before the first one ends.
const HOLD_MS = 25_000;

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
  beforeAll(async () => {
    target = await startHttpFixture({ id: 'h', json: true });
    proxy = await startProxy(
      { targets: [{ name: 'h', streamableHttp: { url: target.url } }] },
      { limits: { targetQueue: 0 } },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await target?.close();
  });

  it('fails the call past the pool at once, answers a new initialize 503, and recovers', async () => {
    const origin = new URL(target.url).origin;
    const opened = await fetch(proxy.url, { method: 'POST', headers: json, body: init });
    const session = opened.headers.get('mcp-session-id') ?? '';
    await opened.text();
    const call = (id: number, ms: number): Promise<string> =>
      fetch(proxy.url, {
        method: 'POST',
        headers: { ...json, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'slow', arguments: { steps: 1, ms } },
        }),
      }).then((r) => r.text());
    // 256 slow calls hold every pooled connection to the target.
    // Opened in batches, so neither side's accept backlog overflows on a loaded machine.
    const held: Promise<string>[] = [];
    const heldAt = Date.now();
    for (let b = 0; b < 4; b++) {
      for (let i = 0; i < 64; i++)
        held.push(call(100 + b * 64 + i, HOLD_MS).catch((err: unknown) => `failed: ${String(err)}`));
      await new Promise((r) => setTimeout(r, 150));
    }
    // Every pooled connection carries one of them before the next call is sent.
    await expect.poll(() => targetRequestsPending(origin), { timeout: HOLD_MS - 5_000, interval: 50 }).toBe(256);
    const refused = await call(1, 10);
    // Answered at once, long before any held call could have freed a connection.
    expect(Date.now() - heldAt).toBeLessThan(HOLD_MS);
    expect(refused).toContain('is saturated');
    const second = await fetch(proxy.url, { method: 'POST', headers: json, body: init });
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(await second.text())).toMatchObject({ error: 'overloaded' });
    const answers = await Promise.all(held);
    expect(answers.filter((a) => a.includes('"result"'))).toHaveLength(256);
    expect(await call(2, 10)).toContain('"result"');
  }, 90_000);
});
