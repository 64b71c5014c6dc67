// backend.mcp.guardrails end to end: manifests → translator → IR codec → proxy runtime, the MCP SDK's
// client in front, a real SDK MCP server behind, and a real processor speaking the contract of
// docs/mcp-guardrails.md on loopback.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { GuardrailUnavailable, type ProcessorRequest } from '../../../src/proxy/mcp/guardrails/index.js';
import { freePort } from '../ports.js';
import { connectClient, textOf } from '../harness.js';
import { connectModernClient } from '../modern-client.js';
import { gatewayWithStaticBackend, httpRoute, routeTrafficPolicy, translatedIr } from '../translated-ir.js';
import { capturingLogger, prefixRoutes, startProcessor, startTarget, type Running } from './servers.js';

const secretToken = 'Bearer s3cret-token-value';
const issuer = 'https://idp.example';
let signingKey: CryptoKey;

function manifests(targetPort: number, processor: string, dead: string, inlineJwks: string): string {
  const backend = (name: string, guardrails: string, extra = '') => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    ${extra}targets: [{name: files, static: {host: 127.0.0.1, port: ${targetPort}, path: /mcp}}]
  policies:
    mcp:
      guardrails:
        processors:
${guardrails}`;
  // A route of its own for GwBackend `name`, so its traffic policy touches no other route.
  const ownRoute = (name: string, traffic: string) =>
    `${httpRoute(name)}${routeTrafficPolicy(name, `\n    ${traffic}`)}`;
  const names = ['guarded', 'patterns', 'allheaders', 'closed', 'open', 'missing', 'chain', 'stateless'];
  // The shared Gateway header also brings a static GwBackend no route uses.
  return `${gatewayWithStaticBackend(targetPort, 'unused')}${prefixRoutes(names)}${backend(
    'guarded',
    `        - remote:
            url: ${processor}
            metadata: {route: "'guarded'", tool: "mcp.tool", tenant: "request.headers['x-tenant']", subject: "jwt.sub"}
            allowedRequestHeaders: [X-Tenant, Authorization, ":authority"]
            disallowedRequestHeaders: [AUTHORIZATION]
          methods: {"tools/call": Full, "tools/list": Response}
`,
  )}${backend(
    'patterns',
    `        - remote: {url: ${processor}, metadata: {route: "'patterns'"}}
          methods: {"*": Full, "tools/*": Request, "tools/call": "Off", "*/list": Response}
`,
  )}${backend(
    'allheaders',
    `        - remote: {url: ${processor}, metadata: {route: "'all'"}}
          methods: {"tools/call": Request}
`,
  )}${backend(
    'closed',
    `        - remote: {url: ${dead}}
          methods: {"tools/call": Request}
`,
  )}${backend(
    'open',
    `        - remote: {url: ${dead}, failureMode: FailOpen}
          methods: {"tools/call": Request}
`,
  )}${backend(
    'missing',
    `        - remote: {backendRef: {name: gone, port: 80}, failureMode: FailOpen}
          methods: {"tools/call": Request}
`,
  )}${backend(
    'chain',
    `        - remote: {url: ${processor}, metadata: {route: "'chain-1'"}}
          methods: {"tools/call": Request}
        - remote: {url: ${processor}, metadata: {route: "'chain-2'"}}
          methods: {"tools/call": Full}
`,
  )}${backend(
    'stateless',
    `        - remote: {url: ${processor}, metadata: {route: "'stateless'"}}
          methods: {"tools/*": Full}
`,
    'sessionRouting: Stateless\n    ',
  )}${backend(
    'authz',
    `        - remote: {url: ${processor}, metadata: {route: "'authz'"}}
          methods: {"tools/call": Request}
`,
  )}${ownRoute('authz', `authorization: {policy: {matchExpressions: ["mcp.tool != 'read_note'"]}}`)}${backend(
    'jwt',
    `        - remote: {url: ${processor}, metadata: {route: "'jwt'", user: jwt.sub, groups: jwt.groups}}
          methods: {"tools/call": Request}
`,
  )}${ownRoute('jwt', `jwtAuthentication: {providers: [{issuer: "${issuer}", jwks: {inline: ${inlineJwks}}}]}`)}`;
}

let target: Awaited<ReturnType<typeof startTarget>>;
let processor: Running & { seen: ProcessorRequest[] };
let runtime: ProxyRuntime;
let base = '';
const logs = capturingLogger();

beforeAll(async () => {
  target = await startTarget();
  processor = await startProcessor();
  const pair = await generateKeyPair('ES256');
  signingKey = pair.privateKey;
  const inlineJwks = JSON.stringify(
    JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] }),
  );
  runtime = new ProxyRuntime({ log: logs.log, security: createRouteSecurity() });
  await runtime.apply(
    translatedIr(manifests(target.port, processor.url, `http://127.0.0.1:${await freePort()}/check`, inlineJwks)),
  );
  base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
});

afterAll(async () => {
  await runtime?.close();
  await processor?.close();
  await target?.close();
});

const seenBy = (route: string) => processor.seen.filter((s) => s.metadata.route === route);

async function rejection(p: Promise<unknown>): Promise<McpError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  // The 1.x client throws McpError, the 2.4 client its ProtocolError: both carry code, message and data.
  expect(err).toBeInstanceOf(Error);
  expect(typeof (err as { code?: unknown }).code).toBe('number');
  return err as McpError;
}

// The same cases for a 2025 client (a session) and a 2026-07-28 client (stateless, no session id).
const generations = [
  { generation: '2025-11-25', connect: connectClient, sealed: true },
  {
    generation: '2026-07-28',
    connect: (url: string, _caps?: object, headers?: Record<string, string>) => connectModernClient(url, headers),
    sealed: false,
  },
];

describe.each(generations)('MCP guardrail processors on a translated route ($generation)', ({ connect, sealed }) => {
  beforeAll(() => {
    // Each generation starts from what it alone made the processor and the target see.
    processor.seen.length = 0;
    target.calls.length = 0;
  });

  it('rejects a tools/call the processor refuses with its JSON-RPC error, and the target never sees it', async () => {
    const { client } = await connect(`${base}/guarded`);
    const err = await rejection(client.callTool({ name: 'delete_file', arguments: { path: '/etc' } }));
    expect(err.code).toBe(-32099);
    expect(err.message).toContain('tool delete_file is not allowed here');
    expect(err.data).toEqual({ policy: 'no-deletes' });
    expect(target.calls.some((c) => c.name === 'delete_file')).toBe(false);
    await client.close();
  });

  it('forwards the params a processor modified and returns the result it modified', async () => {
    const { client } = await connect(`${base}/guarded`);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'rewrite-me' } }))).toBe('echo:rewritten');
    expect(target.calls).toContainEqual({ name: 'echo', args: { text: 'rewritten' } });
    expect(textOf(await client.callTool({ name: 'read_note', arguments: {} }))).toBe(
      'the password is ****, keep **** safe',
    );
    await client.close();
  });

  it('runs the response phase of tools/list on the merged list', async () => {
    const { client } = await connect(`${base}/guarded`);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['echo', 'read_note']);
    await client.close();
  });

  it('sends evaluated metadata and only allowed headers, case-insensitively, with disallowed winning', async () => {
    const { client } = await connect(
      `${base}/guarded`,
      {},
      { 'X-Tenant': 'blue', Authorization: secretToken, 'X-Other': 'no' },
    );
    await client.callTool({ name: 'echo', arguments: { text: 'meta' } });
    const asked = seenBy('guarded').find(
      (s) => s.phase === 'request' && (s.params.arguments as { text?: string }).text === 'meta',
    );
    // jwt.sub cannot be evaluated without a token: that entry is left out, the call goes on.
    expect(asked?.metadata).toEqual({ route: 'guarded', tool: 'echo', tenant: 'blue' });
    expect(Object.keys(asked?.headers ?? {}).sort()).toEqual([':authority', 'x-tenant']);
    // The sealed session id (session-seal.ts); a 2026 client has none.
    if (sealed) expect(asked?.sessionId).toMatch(/^[A-Za-z0-9_-]{60,}$/);
    else expect(asked?.sessionId ?? '').toBe('');
    expect(asked?.version).toBe('gw.dev/mcp-guardrails/v1');
    await client.close();
  });

  it('evaluates metadata over the validated token claims', async () => {
    const token = await new SignJWT({ sub: 'alice', groups: ['ops', 'dev'] })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(issuer)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(signingKey);
    const { client } = await connect(`${base}/jwt`, {}, { Authorization: `Bearer ${token}` });
    await client.callTool({ name: 'echo', arguments: { text: 'who' } });
    expect(seenBy('jwt').at(-1)?.metadata).toEqual({ route: 'jwt', user: 'alice', groups: ['ops', 'dev'] });
    expect(logs.lines.join('\n')).not.toContain(token);
    await client.close();
  });

  it('forwards every header and pseudo-header, Authorization included, when no allowed list is set', async () => {
    const { client } = await connect(`${base}/allheaders`, {}, { Authorization: secretToken });
    await client.callTool({ name: 'echo', arguments: { text: 'all' } });
    const asked = seenBy('all').at(-1);
    expect(asked?.headers.authorization).toBe(secretToken);
    expect(asked?.headers[':method']).toBe('POST');
    expect(asked?.headers[':path']).toBe('/allheaders');
    expect(asked?.headers[':authority']).toMatch(/^127\.0\.0\.1:\d+$/);
    await client.close();
  });

  it('picks the most specific method pattern, bypasses Off and never sends ping', async () => {
    const { client } = await connect(`${base}/patterns`);
    await client.callTool({ name: 'echo', arguments: { text: 'x' } }); // tools/call: Off (exact beats tools/*)
    await client.listTools(); // tools/* (longer literal) beats */list: Request only
    await client.listPrompts(); // */list: Response only
    await client.getPrompt({ name: 'greet', arguments: { who: 'ann' } }); // *: Full
    if (sealed) await client.ping(); // 2026-07-28 has no ping
    expect(seenBy('patterns').map((s) => `${s.method} ${s.phase}`)).toEqual([
      'tools/list request',
      'prompts/list response',
      'prompts/get request',
      'prompts/get response',
    ]);
    await client.close();
  });

  it('stops the chain at the first rejection and passes modified params to the next processor', async () => {
    const { client } = await connect(`${base}/chain`);
    await rejection(client.callTool({ name: 'delete_file', arguments: { path: '/x' } }));
    expect(seenBy('chain-1').map((s) => s.params.name)).toEqual(['delete_file']);
    expect(seenBy('chain-2')).toEqual([]);
    await client.callTool({ name: 'echo', arguments: { text: 'rewrite-me' } });
    expect(seenBy('chain-2').map((s) => `${s.phase} ${JSON.stringify(s.params.arguments)}`)).toEqual([
      'request {"text":"rewritten"}',
      'response {"text":"rewritten"}',
    ]);
    await client.close();
  });

  it("asks processors only about calls the route's authorization allowed", async () => {
    const { client } = await connect(`${base}/authz`);
    await expect(client.callTool({ name: 'read_note', arguments: {} })).rejects.toThrow(
      /an authorization rule denies this request/,
    );
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'allowed' } }))).toBe('echo:allowed');
    expect(seenBy('authz').map((s) => s.params.name)).toEqual(['echo']);
    await client.close();
  });

  it('guards stateless routes too', async () => {
    const { client } = await connect(`${base}/stateless`);
    const err = await rejection(client.callTool({ name: 'delete_file', arguments: { path: '/x' } }));
    expect(err.code).toBe(-32099);
    await client.close();
  });
});

describe('when a processor cannot be asked', () => {
  it('FailClosed rejects the matched call with a JSON-RPC error and leaves unmatched methods alone', async () => {
    const { client } = await connectClient(`${base}/closed`, {}, { Authorization: secretToken });
    const err = await rejection(client.callTool({ name: 'echo', arguments: { text: 'closed' } }));
    expect(err.code).toBe(GuardrailUnavailable);
    expect(err.message).toContain('the call was not forwarded: guardrail processor 1 is unavailable');
    expect(target.calls).not.toContainEqual({ name: 'echo', args: { text: 'closed' } });
    expect((await client.listTools()).tools.length).toBe(3);
    await client.close();
  });

  it('FailOpen lets the call pass and logs the failure without secrets', async () => {
    const { client } = await connectClient(`${base}/open`, {}, { Authorization: secretToken });
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'open' } }))).toBe('echo:open');
    const warned = logs.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.failureMode === 'FailOpen');
    expect(warned).toMatchObject({
      processor: 1,
      phase: 'request',
      method: 'tools/call',
      msg: 'guardrail processor failed; FailOpen lets the call pass',
    });
    expect(String(warned?.err)).toMatch(/cannot be reached/);
    expect(logs.lines.join('\n')).not.toContain('s3cret-token-value');
    await client.close();
  });

  it('rejects calls matched by a processor whose Service is missing, even with FailOpen', async () => {
    const { client } = await connectClient(`${base}/missing`);
    const err = await rejection(client.callTool({ name: 'echo', arguments: { text: 'missing' } }));
    expect(err.code).toBe(GuardrailUnavailable);
    expect(err.message).toContain('guardrail processor 1 is misconfigured');
    expect(logs.lines.some((l) => l.includes('Service default/gone does not exist'))).toBe(true);
    await client.close();
  });
});
