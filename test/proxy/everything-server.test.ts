import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, everythingServer, startProxy, stdioTarget, textOf, type Started } from './harness.js';

// @modelcontextprotocol/server-everything from npm, spawned over stdio next to the test fixture.
describe('an off-the-shelf MCP server as a stdio target', () => {
  let proxy: Started;
  beforeAll(async () => {
    proxy = await startProxy({
      targets: [
        { name: 'everything', stdio: { cmd: process.execPath, args: [everythingServer, 'stdio'] } },
        stdioTarget('fixture'),
      ],
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('lists and calls its tools through the proxy with the target prefix', async () => {
    const { client } = await connectClient(proxy.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.some((n) => n.startsWith('everything_echo'))).toBe(true);
    expect(names).toContain('fixture_echo');
    const echo = names.find((n) => n === 'everything_echo') ?? '';
    expect(textOf(await client.callTool({ name: echo, arguments: { message: 'hello' } }))).toContain('hello');
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts.some((p) => p.startsWith('everything_'))).toBe(true);
    const resources = (await client.listResources()).resources;
    expect(resources.length).toBeGreaterThan(0);
    await client.close();
  });
});
