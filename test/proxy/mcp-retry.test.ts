// GwPolicy traffic.retry on MCP routes: the real runtime serves translated manifests; the SDK's client
// talks to it, and the target is the SDK fixture server behind a flaky front (test/proxy/mcp-flaky-front.ts).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { log } from './http-forward-harness.js';
import { connectClient, textOf } from './harness.js';
import { startFlakyFront, type FlakyFront } from './mcp-flaky-front.js';
import { translatedIr } from './translated-ir.js';
import { mcpBackendManifest, trafficManifests } from './traffic-manifests.js';

describe('MCP routes retry target requests per traffic.retry', () => {
  let fixture: HttpFixture;
  let front: FlakyFront;
  let runtime: ProxyRuntime;
  let base = '';

  beforeAll(async () => {
    fixture = await startHttpFixture({ id: 'flaky' });
    front = await startFlakyFront(new URL(fixture.url));
    runtime = new ProxyRuntime({ log });
    await runtime.apply(
      translatedIr(
        trafficManifests(
          1,
          [
            { name: 'retry', backend: 'tools', traffic: '{retry: {attempts: 2, backoff: 10ms, codes: [503]}}' },
            { name: 'plain', backend: 'tools', traffic: '{cors: {allowOrigins: ["*"]}}' },
            {
              name: 'bounded',
              backend: 'tools',
              traffic: '{timeouts: {request: 2s}, retry: {attempts: 10, backoff: 500ms, codes: [503]}}',
            },
          ],
          mcpBackendManifest('tools', front.port),
        ),
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  beforeEach(() => front.reset());

  afterAll(async () => {
    await runtime?.close();
    await front?.close();
    await fixture?.close();
  });

  async function withClient<T>(
    path: string,
    use: (client: Awaited<ReturnType<typeof connectClient>>['client']) => Promise<T>,
  ): Promise<T> {
    const { client } = await connectClient(`${base}/${path}`);
    try {
      return await use(client);
    } finally {
      await client.close();
    }
  }

  it('opens the session when the target answers the first two initialize requests with 503', async () => {
    front.fail('initialize', '503', '503');
    const text = await withClient('retry', async (c) =>
      textOf(await c.callTool({ name: 'echo', arguments: { text: 'hi' } })),
    );
    expect(text).toBe('flaky:hi');
    expect(front.seen('initialize')).toBe(3);
  });

  it('retries initialize after the connection was dropped before any answer', async () => {
    front.fail('initialize', 'drop');
    await withClient('retry', async (c) => expect((await c.listTools()).tools.length).toBeGreaterThan(0));
    expect(front.seen('initialize')).toBe(2);
  });

  it('sends a tools/call again when the target answered 503, and the target runs it once', async () => {
    await withClient('retry', async (c) => {
      front.fail('tools/call', '503', '503');
      expect(textOf(await c.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3');
    });
    expect(front.seen('tools/call')).toBe(3);
    expect(front.reached('tools/call')).toBe(1);
  });

  it('retries a read (tools/list) whose connection broke before the answer came back', async () => {
    await withClient('retry', async (c) => {
      front.fail('tools/list', 'after');
      expect((await c.listTools()).tools.map((t) => t.name)).toContain('echo');
    });
    expect(front.reached('tools/list')).toBe(2);
  });

  it('never sends a tools/call again after its connection broke: the target may have run it', async () => {
    await withClient('retry', async (c) => {
      front.fail('tools/call', 'after');
      await expect(c.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).rejects.toThrow();
    });
    expect(front.reached('tools/call')).toBe(1);
  });

  it('never retries once part of an SSE answer was relayed', async () => {
    const progress: number[] = [];
    await withClient('retry', async (c) => {
      front.fail('tools/call', 'cut');
      await expect(
        c.callTool({ name: 'slow', arguments: { steps: 3, ms: 100 } }, undefined, {
          onprogress: (p) => progress.push(p.progress),
        }),
      ).rejects.toThrow();
    });
    expect(front.reached('tools/call')).toBe(1);
    expect(front.seen('tools/call')).toBe(1);
  });

  it('passes the failure on when the attempts run out', async () => {
    await withClient('retry', async (c) => {
      front.fail('tools/call', '503', '503', '503');
      await expect(c.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).rejects.toThrow(/503/);
    });
    expect(front.seen('tools/call')).toBe(3);
  });

  it('does not retry on a route without traffic.retry', async () => {
    await withClient('plain', async (c) => {
      front.fail('tools/call', '503');
      await expect(c.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).rejects.toThrow(/503/);
    });
    expect(front.seen('tools/call')).toBe(1);
    const before = front.seen('initialize');
    front.fail('initialize', '503');
    await expect(connectClient(`${base}/plain`)).rejects.toThrow();
    expect(front.seen('initialize')).toBe(before + 1);
  });

  it('stops retrying when the next backoff would pass the call timeout', async () => {
    const started = Date.now();
    await withClient('bounded', async (c) => {
      front.fail('tools/call', ...Array<'503'>(11).fill('503'));
      await expect(c.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).rejects.toThrow(/503/);
    });
    // Waits of 500, 1000, 2000 ms: the third can never fit the 2 s timeout; ten retries would take over 30 s.
    expect(front.seen('tools/call')).toBeGreaterThanOrEqual(2);
    expect(front.seen('tools/call')).toBeLessThanOrEqual(3);
    expect(Date.now() - started).toBeLessThan(12_000);
  });
});
