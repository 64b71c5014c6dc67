import { afterAll, describe, expect, it } from 'vitest';
import { connectClient, startProxy, stdioTarget, textOf, type Started } from './harness.js';

const started: Started[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

async function proxyWith(mcp: Parameters<typeof startProxy>[0]): Promise<Started> {
  const p = await startProxy(mcp);
  started.push(p);
  return p;
}

describe('prefixMode and failureMode', () => {
  it('does not prefix a single target under Conditional but does under Always', async () => {
    const conditional = await connectClient((await proxyWith({ targets: [stdioTarget('one')] })).url);
    expect((await conditional.client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await conditional.client.close();
    const always = await connectClient((await proxyWith({ prefixMode: 'Always', targets: [stdioTarget('one')] })).url);
    expect((await always.client.listTools()).tools.map((t) => t.name)).toContain('one_echo');
    expect(textOf(await always.client.callTool({ name: 'one_echo', arguments: { text: 'x' } }))).toBe('one:x');
    await always.client.close();
  });

  it('routes unprefixed names by lookup under Never', async () => {
    const p = await proxyWith({
      prefixMode: 'Never',
      targets: [stdioTarget('a', { FIXTURE_SUFFIX: '_a' }), stdioTarget('b', { FIXTURE_SUFFIX: '_b' })],
    });
    const { client } = await connectClient(p.url);
    // No list first: the proxy must look the name up itself.
    expect(textOf(await client.callTool({ name: 'echo_b', arguments: { text: 'y' } }))).toBe('b:y');
    expect(textOf(await client.callTool({ name: 'echo_a', arguments: { text: 'z' } }))).toBe('a:z');
    await client.close();
  });

  it('reports duplicate names under Never as a clear error', async () => {
    const p = await proxyWith({ prefixMode: 'Never', targets: [stdioTarget('a'), stdioTarget('b')] });
    const { client } = await connectClient(p.url);
    await expect(client.listTools()).rejects.toThrow(/tool name echo is offered by targets a and b/);
    await client.close();
  });

  it('fails the session under FailClosed when a target cannot start', async () => {
    const broken = { name: 'broken', stdio: { cmd: '/nonexistent/server' } };
    const closed = await proxyWith({ targets: [stdioTarget('ok'), broken] });
    await expect(connectClient(closed.url)).rejects.toThrow(/target failed to initialize: broken/);
    expect(closed.runtime.sessions.size).toBe(0);
  });

  it('skips a failing target under FailOpen and serves the rest', async () => {
    const open = await proxyWith({
      failureMode: 'FailOpen',
      targets: [stdioTarget('ok'), { name: 'broken', stdio: { cmd: '/nonexistent/server' } }],
    });
    const { client } = await connectClient(open.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('ok_echo');
    expect(names.some((n) => n.startsWith('broken_'))).toBe(false);
    await client.close();
  });
});
