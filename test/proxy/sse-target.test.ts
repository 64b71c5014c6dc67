import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startProxy, textOf, type Started } from './harness.js';
import { startSseFixture, type SseFixture } from '../fixtures/mcp-sse-server.js';

describe('a remote target over the legacy HTTP+SSE transport', () => {
  let sse: SseFixture;
  let proxy: Started;
  beforeAll(async () => {
    sse = await startSseFixture('legacy');
    proxy = await startProxy({ prefixMode: 'Always', targets: [{ name: 'old', sse: { url: sse.url } }] });
  });
  afterAll(async () => {
    await proxy?.close();
    await sse?.close();
  });

  it('lists and calls its tools through the proxy', async () => {
    const { client } = await connectClient(proxy.url);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('old_echo');
    expect(textOf(await client.callTool({ name: 'old_echo', arguments: { text: 'v1' } }))).toBe('legacy:v1');
    await client.close();
  });
});
