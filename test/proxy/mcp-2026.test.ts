// MCP 2026-07-28 through the proxy, with the real SDKs on both sides: the TypeScript SDK 2.4 client
// (pinned to 2026-07-28) and 1.x client, the SDK 2.4 server (2026-only) and the 1.x fixture server, in
// the four combinations and on a multiplexed route with one target of each generation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { startModernFixture, type ModernFixture } from '../fixtures/mcp-2026-server.js';
import { connectClient, startProxy, textOf, waitFor, type Started } from './harness.js';

let modern: ModernFixture;
let old: HttpFixture;
const proxies: Started[] = [];

beforeAll(async () => {
  [modern, old] = await Promise.all([startModernFixture({ id: 'new' }), startHttpFixture({ id: 'old' })]);
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await Promise.all([modern.close(), old.close()]);
});

async function proxyTo(...targets: { name: string; url: string }[]): Promise<Started> {
  const p = await startProxy({ targets: targets.map((t) => ({ name: t.name, streamableHttp: { url: t.url } })) });
  proxies.push(p);
  return p;
}

/** The SDK 2.4 client pinned to 2026-07-28; it answers elicitations with `confirm: true`. */
async function newClient(url: string): Promise<Client> {
  const client = new Client(
    { name: 'new-client', version: '2.4.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { confirm: true } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** The SDK 1.x client (2025-11-25, initialize and a session); it answers elicitations with `confirm: true`. */
async function oldClient(url: string) {
  const { client } = await connectClient(url, { elicitation: {} });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } }));
  return client;
}

describe('the four combinations of client and target generation', () => {
  it('serves a 2026 client from a 2026 target statelessly, asking for input across the hop', async () => {
    const p = await proxyTo({ name: 'new', url: modern.url });
    const client = await newClient(p.url);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['confirm', 'echo', 'pid']);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('new:hi');
    // The target's requestState went through the client (wrapped by the proxy) and came back unwrapped.
    expect(textOf(await client.callTool({ name: 'confirm', arguments: { what: 'deploy' } }))).toBe('new:deploy:yes');
    const calls = modern.posts.filter((m) => m.method === 'tools/call');
    expect(calls.length).toBeGreaterThanOrEqual(3);
    const retry = calls.at(-1);
    expect(retry?.body.params).toMatchObject({
      requestState: 'asked-by-new',
      inputResponses: { ok: { action: 'accept' } },
    });
    expect(retry?.headers).toMatchObject({
      'mcp-method': 'tools/call',
      'mcp-name': 'confirm',
      'mcp-protocol-version': '2026-07-28',
    });
    expect(modern.posts.some((m) => m.method === 'initialize')).toBe(false);
    expect(p.runtime.sessions.size).toBe(0);
    await client.close();
  });

  it('serves a 2026 client from a 2025 target by a target session made for each request', async () => {
    const p = await proxyTo({ name: 'old', url: old.url });
    const client = await newClient(p.url);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('old:a');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('old:b');
    // Each request's target session is ended after it (DELETE): none is left at the target.
    await waitFor(() => old.sessions() === 0);
    expect(p.runtime.sessions.size).toBe(0);
    await client.close();
  });

  it('serves a 2025 client from a 2026 target, asking the client for the input the target wants', async () => {
    const p = await proxyTo({ name: 'new', url: modern.url });
    const client = await oldClient(p.url);
    expect(client.getServerVersion()?.name).toBeDefined();
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('new:x');
    expect(textOf(await client.callTool({ name: 'confirm', arguments: { what: 'ship' } }))).toBe('new:ship:yes');
    const result = await client.callTool({ name: 'echo', arguments: { text: 'y' } });
    // No 2026 words reach a 2025 client.
    expect(result).not.toHaveProperty('resultType');
    expect(result).not.toHaveProperty('ttlMs');
    await client.close();
  });

  it('keeps a 2025 client on a 2025 target as it was (initialize, a session)', async () => {
    const p = await proxyTo({ name: 'old', url: old.url });
    const client = await oldClient(p.url);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'z' } }))).toBe('old:z');
    expect(p.runtime.sessions.size).toBe(1);
    await client.close();
  });
});

describe('a multiplexed route with a 2026 and a 2025 target', () => {
  let p: Started;
  beforeAll(async () => {
    p = await proxyTo({ name: 'new', url: modern.url }, { name: 'old', url: old.url });
  });

  it('gives a 2026 client both targets under prefixed names, and a merged server/discover', async () => {
    const client = await newClient(p.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['new_echo', 'new_confirm', 'old_echo']));
    expect(textOf(await client.callTool({ name: 'new_echo', arguments: { text: '1' } }))).toBe('new:1');
    expect(textOf(await client.callTool({ name: 'old_echo', arguments: { text: '2' } }))).toBe('old:2');
    expect(textOf(await client.callTool({ name: 'new_confirm', arguments: { what: 'go' } }))).toBe('new:go:yes');
    const discover = client.getDiscoverResult();
    expect(discover?.supportedVersions).toContain('2026-07-28');
    expect(discover?.capabilities.tools).toBeDefined();
    await client.close();
  });

  it('gives a 2025 client both targets in one session', async () => {
    const client = await oldClient(p.url);
    expect(textOf(await client.callTool({ name: 'new_echo', arguments: { text: '3' } }))).toBe('new:3');
    expect(textOf(await client.callTool({ name: 'old_echo', arguments: { text: '4' } }))).toBe('old:4');
    expect(textOf(await client.callTool({ name: 'new_confirm', arguments: { what: 'go' } }))).toBe('new:go:yes');
    await client.close();
  });

  it('acknowledges a subscriptions/listen once the targets have, then passes their notifications on', async () => {
    const client = await newClient(p.url);
    let changed!: () => void;
    const seen = new Promise<void>((resolve) => {
      changed = resolve;
    });
    client.setNotificationHandler('notifications/tools/list_changed', () => changed());
    const sub = await client.listen({ toolsListChanged: true });
    expect(sub.honoredFilter).toMatchObject({ toolsListChanged: true });
    modern.notify.toolsChanged();
    await seen;
    await sub.close();
    await client.close();
  });
});
