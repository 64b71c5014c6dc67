// MCP 2026-07-28 through the proxy, with the real SDKs on both sides: the TypeScript SDK 2.4 client
// (pinned to 2026-07-28) and 1.x client, the SDK 2.4 server (2026-only) and the 1.x fixture server, in
// the four combinations and on a multiplexed route with one target of each generation.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionKeysFrom } from '../../src/proxy/mcp/session-keys.js';
import type { Client } from '@modelcontextprotocol/client';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { startModernFixture, type ModernFixture } from '../fixtures/mcp-2026-server.js';
import { connectClient, startProxy, stdioTarget, textOf, waitFor, type Started } from './harness.js';
import { connectModernClient, post2026 } from './modern-client.js';

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
  const { client } = await connectModernClient(url, {}, { elicitation: {} });
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { confirm: true } }));
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

  it('serves a 2026 client from a stdio target (2025, through the SDK client) started for the request', async () => {
    const p = await startProxy({ targets: [stdioTarget('s')] });
    proxies.push(p);
    const client = await newClient(p.url);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'c' } }))).toBe('s:c');
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

describe('the 2026-07-28 wire at the proxy', () => {
  let p: Started;
  beforeAll(async () => {
    p = await proxyTo({ name: 'new', url: modern.url }, { name: 'old', url: old.url });
  });

  it('answers HeaderMismatch (HTTP 400) when Mcp-Method or Mcp-Name disagree with the body', async () => {
    const method = await post2026(p.url, 'tools/list', {}, { 'mcp-method': 'prompts/list' });
    expect(method.status).toBe(400);
    expect(method.body).toMatchObject({ id: 7, error: { code: -32020 } });
    const name = await post2026(
      p.url,
      'tools/call',
      { name: 'new_echo', arguments: { text: 'x' } },
      { 'mcp-name': 'old_echo' },
    );
    expect(name.status).toBe(400);
    expect(name.body).toMatchObject({ error: { code: -32020, message: expect.stringContaining('Mcp-Name') } });
    const missing = await post2026(p.url, 'tools/call', { name: 'new_echo', arguments: { text: 'x' } });
    expect(missing.status).toBe(400);
    // The base64 form of the header is understood.
    const encoded = `=?base64?${Buffer.from('new_echo').toString('base64')}?=`;
    const ok = await post2026(
      p.url,
      'tools/call',
      { name: 'new_echo', arguments: { text: 'x' } },
      { 'mcp-name': encoded },
    );
    expect(ok.body).toMatchObject({ result: { content: [{ text: 'new:x' }], resultType: 'complete' } });
  });

  it('refuses a protocol version it does not speak with UnsupportedProtocolVersion naming those it does', async () => {
    const res = await fetch(p.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': '2027-01-01',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } },
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: -32022, data: { supported: expect.arrayContaining(['2026-07-28', '2025-11-25']) } },
    });
  });

  it('passes a 2026 target’s protocol error on with its code, its data and its HTTP status', async () => {
    // `confirm` asks for elicitation, which this client does not declare: the target answers -32021 (HTTP 400).
    const res = await post2026(
      p.url,
      'tools/call',
      { name: 'new_confirm', arguments: { what: 'x' } },
      { 'mcp-name': 'new_confirm' },
      {},
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      id: 7,
      error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } },
    });
  });

  it('refuses a request without its envelope (400, -32602) and removed or unknown methods (404, -32601)', async () => {
    const bare = await post2026(p.url, 'tools/list', {}, {}, null);
    expect(bare.status).toBe(400);
    expect(bare.body).toMatchObject({ id: 7, error: { code: -32602, message: expect.stringContaining('_meta') } });
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'unknown/method']) {
      const res = await post2026(p.url, method, method === 'resources/subscribe' ? { uri: 'x:y' } : {});
      expect([method, res.status]).toEqual([method, 404]);
      expect(res.body).toMatchObject({ id: 7, error: { code: -32601 } });
    }
  });

  it('never marks a proxied list cacheable, and names itself as the server', async () => {
    const list = await post2026(p.url, 'tools/list', {});
    expect(list.body.result).toMatchObject({ ttlMs: 0, cacheScope: 'private', resultType: 'complete' });
    const meta = (list.body.result as { _meta: Record<string, { name: string }> })._meta;
    expect(meta['io.modelcontextprotocol/serverInfo']?.name).not.toMatch(/^fixture-/);
  });

  it('hands out requestState bound to the target that issued it, and refuses it for another', async () => {
    const asked = await post2026(
      p.url,
      'tools/call',
      { name: 'new_confirm', arguments: { what: 'x' } },
      { 'mcp-name': 'new_confirm' },
    );
    const result = asked.body.result as { resultType: string; requestState: string; inputRequests: object };
    expect(result.resultType).toBe('input_required');
    expect(result.inputRequests).toHaveProperty('ok');
    expect(result.requestState).not.toBe('asked-by-new'); // wrapped: the target's name travels with it
    const elsewhere = await post2026(
      p.url,
      'tools/call',
      { name: 'old_echo', arguments: { text: 'x' }, requestState: result.requestState },
      { 'mcp-name': 'old_echo' },
    );
    expect(elsewhere.body).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('another target') },
    });
    const forged = await post2026(
      p.url,
      'tools/call',
      { name: 'new_confirm', arguments: { what: 'x' }, requestState: 'asked-by-new' },
      { 'mcp-name': 'new_confirm' },
    );
    expect(forged.body).toMatchObject({ error: { code: -32602 } });
    // Any replica can take the retry: the state is in the request, not in this proxy.
    const other = await proxyTo({ name: 'new', url: modern.url }, { name: 'old', url: old.url });
    const done = await post2026(
      other.url,
      'tools/call',
      {
        name: 'new_confirm',
        arguments: { what: 'x' },
        requestState: result.requestState,
        inputResponses: { ok: { action: 'accept', content: { confirm: false } } },
      },
      { 'mcp-name': 'new_confirm' },
    );
    expect(done.body).toMatchObject({ result: { content: [{ text: 'new:x:no' }] } });
  });
});

describe('a 2025 client session over a 2026 target, across replicas', () => {
  it('resumes on another replica from the sealed id, which names the target 2026-07-28 and no target session', async () => {
    const keys = sessionKeysFrom({ SESSION_KEY: randomBytes(32).toString('base64') });
    const mcp = { targets: [{ name: 'new', streamableHttp: { url: modern.url } }] };
    const [a, b] = await Promise.all([startProxy(mcp, { sessionKeys: keys }), startProxy(mcp, { sessionKeys: keys })]);
    proxies.push(a, b);
    const { client, transport } = await connectClient(a.url);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'on-a' } }))).toBe('new:on-a');
    const res = await fetch(b.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-session-id': transport.sessionId ?? '',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'on-b' } },
      }),
    });
    expect(await res.json()).toMatchObject({ result: { content: [{ text: 'new:on-b' }] } });
    expect(b.runtime.sessions.size).toBe(1);
    await client.close();
  });
});
