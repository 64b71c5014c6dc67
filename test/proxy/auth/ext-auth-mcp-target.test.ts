// backend.extAuth per MCP target: a GwPolicy aimed at one target with sectionName gives that target a service of
// its own, asked before a client request reaches it; the other target is never asked about. Translated from
// manifests, served by a real runtime, two real streamable-HTTP MCP targets and two services: the loopback HTTP
// ext_authz stand-in (ext-auth-server.ts: x-user alice is allowed, bob denied with 403) on route /mcp, and a real
// Open Policy Agent over gRPC (`make opa`, testdata/ext-authz.rego: on /shop a buyer token is allowed, another
// denied with 403 and a JSON body) on route /shop; for a 2025 client and a 2026-07-28 client.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../../fixtures/mcp-http-server.js';
import { generations } from '../generations.js';
import { GATEWAY, startLlmProxy, type LlmProxy } from '../llm/llm-harness.js';
import { startExtAuthServer, type ExtAuthServer } from './ext-auth-server.js';
import { bearer, OpaServer } from './opa-server.js';
import { httpRoute } from '../translated-ir.js';

const tools = (name: string, open: number, guarded: number): string => `
---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    targets:
    - {name: open, static: {host: 127.0.0.1, port: ${open}, path: /mcp}}
    - {name: guarded, static: {host: 127.0.0.1, port: ${guarded}, path: /mcp}}
`;

const guardedBy = (name: string, extAuth: string): string => `
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: ${name}-guarded, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: ${name}, sectionName: guarded}]
  backend: {extAuth: ${extAuth}}
`;

const route = (name: string, prefix: string): string => `\n${httpRoute(name, { prefix })}`;

const manifests = (open: number, guarded: number, svc: string, opa: string): string =>
  [
    GATEWAY,
    tools('tools', open, guarded),
    guardedBy(
      'tools',
      `{url: "${svc}/target-guarded", http: {allowedRequestHeaders: [X-User], allowedResponseHeaders: [X-Auth-User]}, forwardBody: {maxSize: "64Ki"}}`,
    ),
    route('tools', '/mcp'),
    tools('shop', open, guarded),
    // The policy's /shop rule reads contextExtensions.tenant.
    guardedBy('shop', `{url: "${opa}", grpc: {contextExtensions: {tenant: acme}}}`),
    route('shop', '/shop'),
  ].join('');

type Tool = { name: string };

/** The headers of the POSTs `f` received from index `from` on. */
const postsSince = (f: HttpFixture, from: number) =>
  f.headers.slice(from).filter((_, i) => f.requests[from + i]?.method === 'POST');

describe.each(generations)('backend.extAuth per MCP target ($generation client)', (g) => {
  let open: HttpFixture, guarded: HttpFixture;
  let authz: ExtAuthServer;
  let opa: OpaServer;
  let proxy: LlmProxy;
  const url = (): string => `${proxy.base}/mcp`;
  const port = (f: HttpFixture): number => Number(new URL(f.url).port);

  beforeAll(async () => {
    [open, guarded] = await Promise.all([startHttpFixture({ id: 'open' }), startHttpFixture({ id: 'guarded' })]);
    [authz, opa] = await Promise.all([startExtAuthServer(), OpaServer.start()]);
    const services = [`http://127.0.0.1:${authz.port}`, `grpc://127.0.0.1:${opa.port}`] as const;
    proxy = await startLlmProxy(manifests(port(open), port(guarded), ...services));
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([open?.close(), guarded?.close(), authz?.close(), opa?.stop()]);
  });
  beforeEach(() => {
    authz.checks.length = 0;
  });

  it("lists and calls the guarded target's tools for an allowed client, its service sent the JSON-RPC body", async () => {
    const c = await g.open(url(), { 'x-user': 'alice' });
    const [openFrom, guardedFrom] = [open.headers.length, guarded.headers.length];
    const listed = await c.call('tools/list');
    const names = (listed.body.result as { tools: Tool[] }).tools.map((t) => t.name);
    expect(names).toContain('open_echo');
    expect(names).toContain('guarded_echo');
    const called = await c.call('tools/call', { name: 'guarded_echo', arguments: { text: 'hi' } });
    expect(called.body.error).toBeUndefined();
    expect(JSON.stringify(called.body.result)).toContain('guarded:hi');
    // One check per client request that reached the target, each with that request's body.
    expect(authz.checks.map((ch) => ch.url)).toEqual(['/target-guarded/mcp', '/target-guarded/mcp']);
    expect(authz.checks[0]?.body).toContain('"tools/list"');
    expect(authz.checks[1]?.body).toContain('"tools/call"');
    // The header the allow set (allowedResponseHeaders) reaches the guarded target's calls, and only that one.
    const toGuarded = postsSince(guarded, guardedFrom).map((h) => h['x-auth-user']);
    expect(toGuarded).toContain('alice');
    expect(postsSince(guarded, guardedFrom).map((h) => h['x-auth-internal'])).not.toContain('do-not-copy');
    expect(postsSince(open, openFrom).some((h) => 'x-auth-user' in h)).toBe(false);
  });

  it("drops a denied target's tools from the list and answers a call to it with a JSON-RPC error", async () => {
    const c = await g.open(url(), { 'x-user': 'bob' });
    const listed = await c.call('tools/list');
    expect(listed.status).toBe(200);
    const names = (listed.body.result as { tools: Tool[] }).tools.map((t) => t.name);
    expect(names).toContain('open_echo');
    expect(names.filter((n) => n.startsWith('guarded_'))).toEqual([]);
    const denied = await c.call('tools/call', { name: 'guarded_echo', arguments: { text: 'hi' } });
    expect(denied.status).toBe(200);
    expect(denied.body.error).toEqual({
      code: -32003,
      message: 'target guarded: the authorization service denied this request',
      data: { target: 'guarded', status: 403, body: JSON.stringify({ denied: 'bob' }) },
    });
    // The other target is never asked about, and serves the same client.
    const other = await c.call('tools/call', { name: 'open_echo', arguments: { text: 'yo' } });
    expect(JSON.stringify(other.body.result)).toContain('open:yo');
    expect(authz.checks.map((ch) => ch.url)).toEqual(['/target-guarded/mcp', '/target-guarded/mcp']);
  });

  it("asks Open Policy Agent over gRPC for the guarded target only: a buyer's call is served, a viewer's denied", async () => {
    const buyer = await g.open(`${proxy.base}/shop`, {
      authorization: bearer({ sub: 'alice', role: 'buyer' }),
      'x-opa-user': 'forged',
      'x-remove-me': 'secret',
    });
    const from = guarded.headers.length;
    const served = await buyer.call('tools/call', { name: 'guarded_echo', arguments: { text: 'hi' } });
    expect(JSON.stringify(served.body.result)).toContain('guarded:hi');
    // The OkHttpResponse's headers go on the call to the target; the one it removes, and the forged one, do not.
    const call = postsSince(guarded, from).find((h) => h['x-opa-user'] !== undefined);
    expect(call?.['x-opa-user']).toBe('alice');
    expect(call?.['x-opa-tenant']).toBe('acme');
    expect(call?.['x-remove-me']).toBeUndefined();
    const viewer = await g.open(`${proxy.base}/shop`, { authorization: bearer({ sub: 'bob', role: 'viewer' }) });
    const listed = (await viewer.call('tools/list')).body.result as { tools: Tool[] };
    expect(listed.tools.map((t) => t.name)).toContain('open_echo');
    expect(listed.tools.filter((t) => t.name.startsWith('guarded_'))).toEqual([]);
    const denied = await viewer.call('tools/call', { name: 'guarded_echo', arguments: { text: 'hi' } });
    expect(denied.body.error).toEqual({
      code: -32003,
      message: 'target guarded: the authorization service denied this request',
      data: { target: 'guarded', status: 403, body: JSON.stringify({ denied: 'bob' }) },
    });
    const other = await viewer.call('tools/call', { name: 'open_echo', arguments: { text: 'yo' } });
    expect(JSON.stringify(other.body.result)).toContain('open:yo');
  });
});
