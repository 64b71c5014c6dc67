// Which failed requests to an MCP target may be sent again, and the retry loop against real sockets:
// a port nobody listens on (connection refused) and a server that answers 503.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamAgent } from '../../src/proxy/mcp/upstream-fetch.js';
import { mcpMayRetry, sendWithRetry } from '../../src/proxy/mcp/upstream-retry.js';
import type { RetryPlan } from '../../src/proxy/policy/traffic-policy.js';
import { freePort } from './ports.js';

const plan: RetryPlan = { attempts: 2, backoffMs: 5, codes: new Set([503]) };
const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });

describe('mcpMayRetry', () => {
  it('retries any method the target never received (connection refused)', () => {
    expect(mcpMayRetry(plan, 1, 'tools/call', { error: refused })).toBe(true);
  });

  it('retries a reset only for methods that read', () => {
    expect(mcpMayRetry(plan, 1, 'tools/list', { error: reset })).toBe(true);
    expect(mcpMayRetry(plan, 1, 'resources/read', { error: reset })).toBe(true);
    expect(mcpMayRetry(plan, 1, 'tools/call', { error: reset })).toBe(false);
    expect(mcpMayRetry(plan, 1, '', { error: reset })).toBe(false);
  });

  it("retries the plan's statuses only, and only while attempts are left", () => {
    expect(mcpMayRetry(plan, 1, 'tools/call', { status: 503 })).toBe(true);
    expect(mcpMayRetry(plan, 1, 'tools/call', { status: 500 })).toBe(false);
    expect(mcpMayRetry(plan, 3, 'tools/call', { status: 503 })).toBe(false);
    expect(mcpMayRetry(undefined, 1, 'tools/call', { error: refused })).toBe(false);
  });

  it('never retries a timeout', () => {
    expect(
      mcpMayRetry(plan, 1, 'tools/list', { error: Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' }) }),
    ).toBe(false);
  });
});

describe('sendWithRetry on real sockets', () => {
  let server: Server;
  let port = 0;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.writeHead(503).end('busy');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  it('tries a refused connection 1 + attempts times, then throws the connect error', async () => {
    const dead = await freePort();
    const retries: string[] = [];
    const err = await sendWithRetry(
      () => request(`http://127.0.0.1:${dead}/mcp`, { method: 'POST', body: '{}', dispatcher: upstreamAgent }),
      {
        plan,
        method: 'tools/call',
        timeoutMs: 30_000,
        signal: undefined,
        onRetry: (_n, why) => retries.push(why),
      },
    ).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('ECONNREFUSED');
    expect(retries).toEqual(['connection failed', 'connection failed']);
  });

  it('returns the last 503 with its body readable when the attempts run out', async () => {
    hits = 0;
    const res = await sendWithRetry(
      () => request(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}', dispatcher: upstreamAgent }),
      {
        plan,
        method: 'tools/call',
        timeoutMs: 30_000,
        signal: undefined,
      },
    );
    expect(res.statusCode).toBe(503);
    expect(await res.body.text()).toBe('busy');
    expect(hits).toBe(3);
  });

  it('does not start a retry whose backoff would end after the timeout', async () => {
    hits = 0;
    const res = await sendWithRetry(
      () => request(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}', dispatcher: upstreamAgent }),
      {
        plan: { attempts: 5, backoffMs: 60_000, codes: new Set([503]) },
        method: 'tools/call',
        timeoutMs: 30_000,
        signal: undefined,
      },
    );
    expect(res.statusCode).toBe(503);
    await res.body.dump();
    expect(hits).toBe(1);
  });
});
