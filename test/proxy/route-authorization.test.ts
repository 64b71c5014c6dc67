// Route-level authorization as seed 000 says: every MCP request is checked, the opening one included
// (initialize, or a 2026-07-28 client's server/discover), and a request no rule allows gets 403; rules
// reading mcp.tool (prompt, resource) say nothing about requests that name none, so `mcp.tool != "x"` does
// not deny prompts; a list shows only what the caller may use. The same cases for a 2025 client (a session)
// and a 2026-07-28 client (stateless). Real JWTs, real listener, stdio target.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { generations } from './generations.js';
import { startProxy, stdioTarget, type Started } from './harness.js';
import { startJwtCallers, type JwtCallers } from './jwt-callers.js';

let callers: JwtCallers;
let proxy: Started | undefined;

beforeAll(async () => {
  callers = await startJwtCallers();
});
afterAll(async () => {
  await callers?.close();
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

async function withRules(rules: string[]): Promise<Started> {
  proxy = await startProxy(
    {
      targets: [stdioTarget('t')],
      prefixMode: 'Never',
      policies: { mcpAuthentication: callers.policy, authorization: { rules } },
    },
    { security: createRouteSecurity() },
  );
  return proxy;
}

describe.each(generations)('route-level authorization on MCP routes ($generation)', ({ open }) => {
  const as = async (p: Started, roles: string[]) =>
    open(p.url, { authorization: `Bearer ${await callers.token({ sub: 'u', roles })}` });

  it('refuses the opening request with 403 to a token no rule allows, and serves one a rule allows', async () => {
    const p = await withRules(['"admin" in jwt.roles']);
    const denied = await as(p, ['user']);
    expect(denied.opened).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    const admin = await as(p, ['admin']);
    expect(admin.opened.status).toBe(200);
    expect((await admin.call('tools/list')).status).toBe(200);
  });

  it('checks every method, not only the opening one', async () => {
    const p = await withRules([
      '"admin" in jwt.roles || mcp.method == "initialize" || mcp.method == "server/discover"',
    ]);
    const user = await as(p, ['user']);
    expect(user.opened.status).toBe(200);
    for (const method of ['tools/list', 'prompts/list', 'resources/templates/list'])
      expect([method, (await user.call(method)).status]).toEqual([method, 403]);
  });

  it('mcp.tool != "pid" denies that tool only: prompts and resources stay readable', async () => {
    const p = await withRules(['mcp.tool != "pid"']);
    const c = await as(p, []);
    expect((await c.call('tools/call', { name: 'pid', arguments: {} })).status).toBe(403);
    expect((await c.call('tools/call', { name: 'echo', arguments: { text: 'x' } })).status).toBe(200);
    const prompt = await c.call('prompts/get', { name: 'greet', arguments: { who: 'a' } });
    expect(prompt.status).toBe(200);
    expect(prompt.body).toHaveProperty('result');
    const resource = await c.call('resources/read', { uri: 'fixture://t/info' });
    expect(resource.status).toBe(200);
    expect(resource.body).toHaveProperty('result');
  });

  it('"admins anything, others only echo": others list and call echo, and nothing else', async () => {
    const p = await withRules(['"admin" in jwt.roles', 'mcp.tool == "echo"']);
    const c = await as(p, ['user']);
    expect(c.opened.status).toBe(200);
    expect((await c.call('tools/call', { name: 'echo', arguments: { text: 'x' } })).status).toBe(200);
    expect((await c.call('tools/call', { name: 'add', arguments: {} })).status).toBe(403);
    const listed = (await c.call('tools/list')).body as { result: { tools: { name: string }[] } };
    expect(listed.result.tools.map((x) => x.name)).toEqual(['echo']);
    const admin = await as(p, ['admin']);
    const all = (await admin.call('tools/list')).body as { result: { tools: { name: string }[] } };
    expect(all.result.tools.map((x) => x.name)).toEqual(expect.arrayContaining(['echo', 'add', 'pid']));
  });
});
