// Issue 17: an MCP session begun on one proxy replica is served by any other. Three proxies of one
// config (the same IR snapshot, one SESSION_KEY) on their own loopback ports behind a round-robin
// balancer (round-robin.ts); the MCP SDK client runs whole sessions through it. Also: ids that are
// forged, altered or sealed under an unknown key are 404, DELETE on one replica ends the session on
// all, and a target killed and restarted mid-session does not break the session.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/schema.js';
import { sessionKeysFrom, type SessionKeys } from '../../src/proxy/mcp/session-keys.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { connectClient, processAlive, startProxy, stdioTarget, textOf, waitFor, type Started } from './harness.js';
import { freePort } from './ports.js';
import { startBalancer, type Balancer } from './round-robin.js';

const keyText = (): string => randomBytes(32).toString('base64');
const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function rawCall(url: string, session: string, method = 'tools/list'): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...json, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method }),
  });
  await res.text();
  return res.status;
}

async function startReplicas(mcp: Omit<ConfigFile['mcp'], 'port'>, keys: SessionKeys, n = 3): Promise<Started[]> {
  return Promise.all(Array.from({ length: n }, () => startProxy(mcp, { sessionKeys: keys })));
}

describe('three replicas of one gateway behind a round-robin balancer', () => {
  let h: HttpFixture;
  let k: HttpFixture;
  let hPort: number;
  let replicas: Started[];
  let lb: Balancer;
  const keys = sessionKeysFrom({ SESSION_KEY: keyText() });

  beforeAll(async () => {
    hPort = await freePort();
    h = await startHttpFixture({ id: 'h', port: hPort });
    k = await startHttpFixture({ id: 'k' });
    const mcp = {
      targets: [
        { name: 'h', streamableHttp: { url: h.url } },
        { name: 'k', streamableHttp: { url: k.url } },
        stdioTarget('s'),
      ],
    };
    replicas = await startReplicas(mcp, keys);
    lb = await startBalancer(replicas.map((r) => r.url));
  });
  afterAll(async () => {
    await lb?.close();
    await Promise.all((replicas ?? []).map((r) => r.close()));
    await h?.close();
    await k?.close();
  });

  it('runs whole SDK client sessions with no failed call, each replica serving some of every session', async () => {
    for (let round = 0; round < 2; round++) {
      const before = [...lb.hits];
      const { client, transport } = await connectClient(lb.url, { roots: { listChanged: true } });
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['h_echo', 'k_add', 's_pid']));
      expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['h_greet', 'k_greet', 's_greet']);
      const uris = (await client.listResources()).resources.map((r) => r.uri).sort();
      expect(uris).toEqual(['fixture://h/info', 'fixture://k/info', 'fixture://s/info']);
      expect(textOf(await client.callTool({ name: 'h_echo', arguments: { text: 'a' } }))).toBe('h:a');
      expect(textOf(await client.callTool({ name: 'k_add', arguments: { a: 2, b: 3 } }))).toBe('5');
      expect(textOf(await client.callTool({ name: 's_echo', arguments: { text: 'b' } }))).toBe('s:b');
      const progress: number[] = [];
      const slow = await client.callTool({ name: 'k_slow', arguments: { steps: 3, ms: 20 } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      expect(textOf(slow)).toBe('done 3');
      expect(progress).toEqual([1, 2, 3]);
      await client.sendRootsListChanged();
      const read = await client.readResource({ uri: 'fixture://k/info' });
      expect(read.contents[0]).toMatchObject({ text: 'content of fixture://k/info' });
      expect((await client.getPrompt({ name: 'h_greet', arguments: { who: 'x' } })).messages).toHaveLength(1);
      const id = transport.sessionId ?? '';
      // The GET stream opens on any replica (409 only where the SDK client's own stream is open).
      const gets = await Promise.all(
        replicas.map(async (r) => {
          const ac = new AbortController();
          const res = await fetch(r.url, {
            headers: { accept: 'text/event-stream', 'mcp-session-id': id },
            signal: ac.signal,
          });
          const type = res.headers.get('content-type') ?? '';
          ac.abort();
          return res.status === 200 ? type : String(res.status);
        }),
      );
      for (const g of gets) expect(['text/event-stream', '409']).toContain(g);
      expect(gets.filter((g) => g === 'text/event-stream').length).toBeGreaterThanOrEqual(2);
      lb.hits.forEach((n, i) => expect(n - (before[i] ?? 0)).toBeGreaterThanOrEqual(3));
      // DELETE through the balancer (one replica) ends the session on every replica.
      await transport.terminateSession();
      await client.close();
      for (const r of replicas) expect(await rawCall(r.url, id)).toBe(404);
    }
  });

  it('keeps a session through a target killed and restarted mid-session, and through a stdio target crash', async () => {
    const { client, transport } = await connectClient(lb.url);
    for (let i = 0; i < 3; i++)
      expect(textOf(await client.callTool({ name: 'h_echo', arguments: { text: `${i}` } }))).toBe(`h:${i}`);
    await h.close();
    h = await startHttpFixture({ id: 'h', port: hPort });
    expect(h.sessions()).toBe(0);
    // Every replica finds its h session gone (404), sees k still knows the session, and re-initializes h.
    for (let i = 0; i < 6; i++)
      expect(textOf(await client.callTool({ name: 'h_echo', arguments: { text: `r${i}` } }))).toBe(`h:r${i}`);
    expect((await client.listTools()).tools.length).toBe(27);
    expect(h.sessions()).toBeGreaterThanOrEqual(1);
    const pids = new Set<number>();
    for (let i = 0; i < 3; i++) pids.add(Number(textOf(await client.callTool({ name: 's_pid' }))));
    const [pid] = [...pids];
    await client.callTool({ name: 's_crash' });
    await waitFor(() => !processAlive(pid ?? 0));
    for (let i = 0; i < 3; i++)
      expect(textOf(await client.callTool({ name: 's_echo', arguments: { text: 'z' } }))).toBe('s:z');
    await transport.terminateSession();
    await client.close();
  });
});

describe('sealed session ids', () => {
  let h: HttpFixture;
  const oldKey = keyText();
  const newKey = keyText();
  let a: Started;
  let rotated: Started;
  let stranger: Started;
  beforeAll(async () => {
    h = await startHttpFixture({ id: 'h' });
    const mcp = { targets: [{ name: 'h', streamableHttp: { url: h.url } }] };
    a = await startProxy(mcp, { sessionKeys: sessionKeysFrom({ SESSION_KEY: oldKey }) });
    rotated = await startProxy(mcp, {
      sessionKeys: sessionKeysFrom({ SESSION_KEY: newKey, SESSION_KEY_PREVIOUS: oldKey }),
    });
    stranger = await startProxy(mcp, { sessionKeys: sessionKeysFrom({ SESSION_KEY: keyText() }) });
  });
  afterAll(async () => {
    await Promise.all([a, rotated, stranger].map((p) => p?.close()));
    await h?.close();
  });

  it('opens under a previous key during a rotation, and is 404 when altered, forged or sealed under another key', async () => {
    const { client, transport } = await connectClient(a.url);
    const id = transport.sessionId ?? '';
    expect(await rawCall(rotated.url, id)).toBe(200);
    expect(await rawCall(stranger.url, id)).toBe(404);
    const flipped = id.slice(0, 20) + (id[20] === 'A' ? 'B' : 'A') + id.slice(21);
    expect(await rawCall(rotated.url, flipped)).toBe(404);
    expect(await rawCall(rotated.url, randomBytes(120).toString('base64url'))).toBe(404);
    expect(await rawCall(rotated.url, '00000000-0000-0000-0000-000000000000')).toBe(404);
    await client.close();
    void transport;
  });

  it('answers the client 404 when the only target restarted (nothing can tell a restart from a DELETE), and a new session works', async () => {
    const port = await freePort();
    let t = await startHttpFixture({ id: 't', port });
    const proxy = await startProxy({ targets: [{ name: 't', streamableHttp: { url: t.url } }] });
    try {
      const { client, transport } = await connectClient(proxy.url);
      const id = transport.sessionId ?? '';
      expect(await rawCall(proxy.url, id)).toBe(200);
      await t.close();
      t = await startHttpFixture({ id: 't', port });
      expect(await rawCall(proxy.url, id)).toBe(404);
      expect(await rawCall(proxy.url, id)).toBe(404);
      await client.close();
      const fresh = await connectClient(proxy.url);
      expect(textOf(await fresh.client.callTool({ name: 'echo', arguments: { text: 'n' } }))).toBe('t:n');
      await fresh.client.close();
    } finally {
      await proxy.close();
      await t.close();
    }
  });

  it('lists a resource URI two targets serve once', async () => {
    const d1 = await startHttpFixture({ id: 'dup' });
    const d2 = await startHttpFixture({ id: 'dup' });
    const proxy = await startProxy({
      targets: [
        { name: 'one', streamableHttp: { url: d1.url } },
        { name: 'two', streamableHttp: { url: d2.url } },
      ],
    });
    try {
      const { client } = await connectClient(proxy.url);
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      expect(uris).toEqual(['fixture://dup/info']);
      expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(1);
      await client.close();
    } finally {
      await proxy.close();
      await d1.close();
      await d2.close();
    }
  });
});
