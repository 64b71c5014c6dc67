import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, processAlive, startProxy, stdioTarget, textOf, waitFor, type Started } from './harness.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';

describe('MCP sessions through the proxy (SDK client, stdio and streamable HTTP targets)', () => {
  let http: HttpFixture;
  let proxy: Started;

  beforeAll(async () => {
    http = await startHttpFixture({ id: 'web' });
    proxy = await startProxy({ targets: [stdioTarget('local'), { name: 'web', streamableHttp: { url: http.url } }] });
  });
  afterAll(async () => {
    await proxy?.close();
    await http?.close();
  });

  it('initializes with serverInfo name, title and version and a session id', async () => {
    const { client, transport } = await connectClient(proxy.url);
    expect(client.getServerVersion()).toEqual({ name: 'gw', title: 'Gw MCP gateway', version: '0.1.0' });
    // A sealed id (session-seal.ts): visible ASCII as the transport spec asks, well within a header.
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{60,1024}$/);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    await client.close();
  });

  it('merges tools of both targets with the target name as prefix', async () => {
    const { client } = await connectClient(proxy.url);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('local_echo');
    expect(names).toContain('web_echo');
    expect(textOf(await client.callTool({ name: 'local_echo', arguments: { text: 'a' } }))).toBe('local:a');
    expect(textOf(await client.callTool({ name: 'web_echo', arguments: { text: 'b' } }))).toBe('web:b');
    await client.close();
  });

  it('merges prompts and routes resources by URI to the target that listed them', async () => {
    const { client } = await connectClient(proxy.url);
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
    expect(prompts).toEqual(['local_greet', 'web_greet']);
    const got = await client.getPrompt({ name: 'web_greet', arguments: { who: 'x' } });
    expect(JSON.stringify(got.messages)).toContain('hello x from web');
    const uris = (await client.listResources()).resources.map((r) => r.uri).sort();
    expect(uris).toEqual(['fixture://local/info', 'fixture://web/info']);
    const read = await client.readResource({ uri: 'fixture://web/info' });
    expect(JSON.stringify(read.contents[0])).toContain('content of fixture://web/info');
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
    expect(templates).toEqual(['fixture://local/items/{item}', 'fixture://web/items/{item}']);
    const item = await client.readResource({ uri: 'fixture://local/items/7' });
    expect(JSON.stringify(item.contents[0])).toContain('content of fixture://local/items/7');
    await client.close();
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    const { client } = await connectClient(proxy.url);
    await expect(client.callTool({ name: 'local_nope' })).rejects.toThrow(/Unknown tool/);
    await expect(client.callTool({ name: 'nobody_echo' })).rejects.toThrow(/Unknown tool: nobody_echo/);
    await client.close();
  });

  it('spawns one stdio process per session and reaps it when the session is deleted', async () => {
    const a = await connectClient(proxy.url);
    const b = await connectClient(proxy.url);
    const pidA = Number(textOf(await a.client.callTool({ name: 'local_pid' })));
    const pidB = Number(textOf(await b.client.callTool({ name: 'local_pid' })));
    expect(pidA).not.toBe(pidB);
    await a.transport.terminateSession();
    await a.client.close();
    await waitFor(() => !processAlive(pidA));
    expect(processAlive(pidB)).toBe(true);
    await b.transport.terminateSession();
    await b.client.close();
    await waitFor(() => !processAlive(pidB));
  });

  it('re-initializes a stdio target whose process died mid-session in a fresh process and keeps serving', async () => {
    const { client, transport } = await connectClient(proxy.url);
    const pid = Number(textOf(await client.callTool({ name: 'local_pid' })));
    await client.callTool({ name: 'local_crash' });
    await waitFor(() => !processAlive(pid));
    expect(textOf(await client.callTool({ name: 'local_echo', arguments: { text: 'x' } }))).toBe('local:x');
    const revived = Number(textOf(await client.callTool({ name: 'local_pid' })));
    expect(revived).not.toBe(pid);
    expect(processAlive(revived)).toBe(true);
    expect(textOf(await client.callTool({ name: 'web_echo', arguments: { text: 'still' } }))).toBe('web:still');
    await transport.terminateSession();
    await client.close();
    const fresh = await connectClient(proxy.url);
    expect(textOf(await fresh.client.callTool({ name: 'local_echo', arguments: { text: 'new' } }))).toBe('local:new');
    await fresh.transport.terminateSession();
    await fresh.client.close();
  });

  it('reaps every stdio process when the proxy shuts down', async () => {
    const other = await startProxy({ targets: [stdioTarget('solo')] });
    const { client } = await connectClient(other.url);
    const pid = Number(textOf(await client.callTool({ name: 'pid' })));
    expect(processAlive(pid)).toBe(true);
    await other.close();
    await waitFor(() => !processAlive(pid));
    await client.close().catch(() => undefined);
  });
});
