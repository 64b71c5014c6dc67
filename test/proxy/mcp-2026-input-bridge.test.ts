// A 2025 target (TypeScript SDK 1.x server) whose tool asks the client for sampling and elicitation while it
// runs, behind a 2026-07-28 client (TypeScript SDK 2.4, pinned): Gw presents the target's requests as the
// 2026 input_required result and delivers the client's inputResponses to the target session it keeps for the
// call. On one replica (the target gives no event ids: the replica holds the call), and across two replicas
// behind a round-robin balancer (the target gives event ids: any replica picks the call up with
// Last-Event-ID; without them, the other replica answers with a clear error).
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { sessionKeysFrom } from '../../src/proxy/mcp/session-keys.js';
import { startAskingServer, type AskingServer } from '../fixtures/mcp-2025-asking-server.js';
import type { RuntimeOptions } from '../../src/proxy/runtime.js';
import { startProxy, textOf, waitFor, type Started } from './harness.js';
import { answeringClient, type Answers } from './input-bridge-client.js';
import { startBalancer, type Balancer } from './round-robin.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});
afterAll(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function client2026(url: string, answers?: Answers): Promise<{ client: Client; asked: string[] }> {
  const out = await answeringClient(url, answers);
  closers.push(() => out.client.close());
  return out;
}

async function target(eventStore: boolean): Promise<AskingServer> {
  const t = await startAskingServer({ eventStore });
  closers.push(() => t.close());
  return t;
}

async function replicas(
  url: string,
  n: number,
  limits: RuntimeOptions['limits'] = {},
): Promise<{ proxies: Started[]; lb: Balancer }> {
  const keys = sessionKeysFrom({ SESSION_KEY: randomBytes(32).toString('base64') });
  const mcp = { targets: [{ name: 'old', streamableHttp: { url } }] };
  const proxies = await Promise.all(Array.from({ length: n }, () => startProxy(mcp, { sessionKeys: keys, limits })));
  const lb = await startBalancer(proxies.map((p) => p.url));
  closers.push(async () => {
    await lb.close();
    await Promise.all(proxies.map((p) => p.close()));
  });
  return { proxies, lb };
}

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { sampling: {}, elicitation: {} },
};

/** One tools/call of a 2026 client as raw JSON-RPC over HTTP, to see the multi round-trip answers themselves. */
async function postCall(
  url: string,
  name: string,
  params: Record<string, unknown>,
): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, _meta: envelope, ...params } }),
  });
  return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

describe('a 2025 target asking a 2026 client for input', () => {
  it('holds the call on the replica when the target gives no event ids, and finishes it with the answers', async () => {
    const old = await target(false);
    const { proxies } = await replicas(old.url, 1);
    const { client, asked } = await client2026(proxies[0]!.url);
    const result = await client.callTool({ name: 'plan', arguments: { topic: 'deploy' } });
    expect(textOf(result)).toBe('deploy:model-said:accept:true');
    expect(asked).toEqual(['sampling/createMessage', 'elicitation/create']);
    // One target session served all three rounds, and it is ended with the final result.
    const session = old.seen.find((s) => s.method === 'tools/call')?.session;
    expect(old.seen.filter((s) => s.method === 'answer').map((s) => s.session)).toEqual([session, session]);
    await waitFor(() => old.sessions() === 0);
  });

  it('picks the call up on another replica with Last-Event-ID when the target gives event ids', async () => {
    const old = await target(true);
    const { lb } = await replicas(old.url, 2);
    const { client, asked } = await client2026(lb.url);
    const before = [...lb.hits];
    const result = await client.callTool({ name: 'plan', arguments: { topic: 'ship' } });
    expect(textOf(result)).toBe('ship:model-said:accept:true');
    expect(asked).toEqual(['sampling/createMessage', 'elicitation/create']);
    // The three rounds went to both replicas, and the later ones resumed the target's stream of the call.
    expect(lb.hits.every((h, i) => h > (before[i] ?? 0))).toBe(true);
    const session = old.seen.find((s) => s.method === 'tools/call')?.session;
    const resumed = old.seen.filter((s) => s.method === 'GET' && s.lastEventId !== undefined);
    expect(resumed.map((s) => s.session)).toEqual([session, session]);
    expect(old.seen.filter((s) => s.method === 'answer').map((s) => s.session)).toEqual([session, session]);
    await waitFor(() => old.sessions() === 0);
  });

  it('answers a retry on another replica with a JSON-RPC error when only the first replica can finish the call', async () => {
    const old = await target(false);
    const { lb } = await replicas(old.url, 2);
    const { client } = await client2026(lb.url);
    await expect(client.callTool({ name: 'plan', arguments: { topic: 'x' } })).rejects.toThrow(
      /held by another gateway replica/,
    );
    // The replica holding the call ends it (and its target session) when its requestState expires; the
    // target never got an answer.
    expect(old.seen.filter((s) => s.method === 'answer')).toHaveLength(0);
  });

  it('refuses a requestState presented for another tool', async () => {
    const old = await target(true);
    const { proxies } = await replicas(old.url, 1);
    const post = (params: Record<string, unknown>, name: string) => postCall(proxies[0]!.url, name, params);
    const first = await post({ arguments: { topic: 'a' } }, 'plan');
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 0: { method: 'sampling/createMessage' } },
    });
    const state = first.result?.requestState;
    expect(String(state)).toMatch(/^gwb\./);
    const key = Object.keys(first.result?.inputRequests as object)[0]!;
    const answers = { [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 't' } } };
    const other = await post({ requestState: state, inputResponses: answers }, 'other');
    expect(other.error).toMatchObject({ code: -32602, message: expect.stringMatching(/continues tools\/call plan/) });
    const forged = await post({ requestState: `${String(state).slice(0, -4)}AAAA`, inputResponses: answers }, 'plan');
    expect(forged.error).toMatchObject({ code: -32602, message: expect.stringMatching(/not one this gateway issued/) });
    const missing = await post({ requestState: state, inputResponses: {} }, 'plan');
    expect(missing.error).toMatchObject({ code: -32602, message: expect.stringMatching(/no answer for/) });
  });

  it('asks for input on prompts/get and resources/read as on tools/call, and finishes each with the answers', async () => {
    const old = await target(false);
    const { proxies } = await replicas(old.url, 1);
    const { client, asked } = await client2026(proxies[0]!.url, { said: 'read-said', ok: false });
    const prompt = await client.getPrompt({ name: 'brief' });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'brief:accept:false' });
    const read = await client.readResource({ uri: 'note://asked' });
    expect(read.contents[0]).toMatchObject({ uri: 'note://asked', text: 'note:read-said' });
    expect(asked).toEqual(['elicitation/create', 'sampling/createMessage']);
    await waitFor(() => old.sessions() === 0);
  });

  it('asks for sampling and roots together in one input_required and takes both answers in one retry', async () => {
    const old = await target(false);
    const { lb } = await replicas(old.url, 1);
    const { client, asked } = await client2026(lb.url, { said: 'both', roots: ['file:///a', 'file:///b'] });
    const before = lb.hits[0] ?? 0;
    const result = await client.callTool({ name: 'survey', arguments: { topic: 'q' } });
    expect(textOf(result)).toBe('q:both:file:///a,file:///b');
    expect([...asked].sort()).toEqual(['roots/list', 'sampling/createMessage']);
    // The first call and one retry carrying both answers.
    expect((lb.hits[0] ?? 0) - before).toBe(2);
    await waitFor(() => old.sessions() === 0);
  });

  it('cancels a held call and ends its target session when its requestState expires unanswered', async () => {
    const old = await target(false);
    // The requestState's lifetime, far below the call's own timeout (5 minutes): a held call lasts only as long.
    const { proxies } = await replicas(old.url, 1, { mcpInputTimeoutMs: 300 });
    const first = await postCall(proxies[0]!.url, 'plan', { arguments: { topic: 'late' } });
    expect(first.result).toMatchObject({ resultType: 'input_required' });
    const session = old.seen.find((s) => s.method === 'tools/call')?.session;
    await waitFor(() => old.sessions() === 0);
    expect(old.seen.some((s) => s.method === 'notifications/cancelled' && s.session === session)).toBe(true);
    expect(old.seen.some((s) => s.method === 'DELETE' && s.session === session)).toBe(true);
    const key = Object.keys(first.result?.inputRequests as object)[0]!;
    const late = await postCall(proxies[0]!.url, 'plan', {
      requestState: first.result?.requestState,
      inputResponses: { [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 't' } } },
    });
    expect(late.error).toMatchObject({ code: -32602, message: expect.stringMatching(/or it expired/) });
  });

  it('turns resourceSubscriptions of a subscriptions/listen into resources/subscribe at a 2025 target', async () => {
    const old = await target(false);
    const { proxies } = await replicas(old.url, 1);
    const { client } = await client2026(proxies[0]!.url);
    let updated!: (uri: string) => void;
    const seen = new Promise<string>((resolve) => {
      updated = resolve;
    });
    client.setNotificationHandler('notifications/resources/updated', (n) => updated(n.params.uri));
    const sub = await client.listen({ resourceSubscriptions: ['note://a'] });
    // Acknowledged only once the target took the subscription (and its GET stream is open).
    const subscribed = old.seen.find((s) => s.method === 'resources/subscribe');
    expect(subscribed?.session).toBeDefined();
    await old.touch('note://a');
    expect(await seen).toBe('note://a');
    await sub.close();
    await waitFor(() =>
      old.seen.some((s) => s.method === 'resources/unsubscribe' && s.session === subscribed?.session),
    );
    await waitFor(() => old.sessions() === 0);
  });
});
