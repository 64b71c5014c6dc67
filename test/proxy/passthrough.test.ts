import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { connectClient, startProxy, stdioTarget, textOf, waitFor, type Started } from './harness.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';

let proxy: Started;
let http: HttpFixture;

beforeAll(async () => {
  http = await startHttpFixture({ id: 'web' });
  proxy = await startProxy({
    targets: [stdioTarget('local', { PAGE_SIZE: '4' }), { name: 'web', streamableHttp: { url: http.url } }],
  });
});
afterAll(async () => {
  await proxy?.close();
  await http?.close();
});

describe('pass-through between client and targets', () => {
  it('pages through tools of a paginating target with opaque cursors', async () => {
    const { client } = await connectClient(proxy.url);
    const first = await client.listTools();
    expect(first.nextCursor).toBeDefined();
    const names = first.tools.map((t) => t.name);
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await client.listTools({ cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    }
    expect(names.filter((n) => n.startsWith('local_')).length).toBe(9);
    expect(names.filter((n) => n.startsWith('web_')).length).toBe(9);
    await expect(client.listTools({ cursor: 'garbage' })).rejects.toThrow(/Invalid cursor/);
    await client.close();
  });

  it('passes progress notifications back with the client progress token', async () => {
    const { client } = await connectClient(proxy.url);
    const seen: number[] = [];
    const result = await client.callTool({ name: 'web_slow', arguments: { steps: 3, ms: 10 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(textOf(result)).toBe('done 3');
    expect(seen).toEqual([1, 2, 3]);
    await client.close();
  });

  it('cancels the upstream call when the client cancels', async () => {
    const { client } = await connectClient(proxy.url);
    const ac = new AbortController();
    // Cancelled once the target is working on it (its first progress), long before its 50 steps end.
    const call = client.callTool({ name: 'local_slow', arguments: { steps: 50, ms: 100 } }, undefined, {
      signal: ac.signal,
      onprogress: () => ac.abort('changed my mind'),
    });
    await expect(call).rejects.toThrow();
    expect(textOf(await client.callTool({ name: 'local_echo', arguments: { text: 'after' } }))).toBe('local:after');
    await client.close();
  });

  it('passes sampling, elicitation and roots requests from a target to the client', async () => {
    const { client } = await connectClient(proxy.url, { sampling: {}, elicitation: {}, roots: {} });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'from client' },
    }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'ada' } }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work' }] }));
    expect(textOf(await client.callTool({ name: 'local_sample', arguments: { prompt: 'q' } }))).toBe(
      'sampled:from client',
    );
    expect(textOf(await client.callTool({ name: 'web_sample' }))).toBe('sampled:from client');
    expect(textOf(await client.callTool({ name: 'web_elicit' }))).toBe('elicited:accept:ada');
    expect(textOf(await client.callTool({ name: 'local_roots' }))).toBe('file:///work');
    await client.close();
  });

  it('forwards list_changed notifications on the GET stream', async () => {
    const { client, transport } = await connectClient(proxy.url);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed++;
    });
    // The SDK opens its GET stream after initialized: the notification goes out once the proxy holds it.
    await waitFor(() => proxy.runtime.sessions.get(transport.sessionId ?? '')?.standalone?.open === true);
    await client.callTool({ name: 'local_change' });
    await waitFor(() => changed > 0);
    await client.close();
  });
});
