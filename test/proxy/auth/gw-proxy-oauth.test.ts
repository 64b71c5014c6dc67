// The real `gw proxy` process with mcpAuthentication (IdpF) and authorization rules from a standalone
// file, driven by the MCP SDK client's OAuth flow against a real oidc-provider.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { makeSigningKey, startIdpF, webClient, type OidcHarness } from '../../support/oidc/provider.js';
import { TestOAuthProvider, userAuthorizes } from '../../support/oidc/mcp-oauth-client.js';
import { stdioFixture, waitFor } from '../harness.js';
import { freePort } from '../ports.js';
import { tempDirs } from '../../support/temp-dir.js';

const tenant = 'c0ffee00-0000-4000-8000-000000000001';
const clientId = 'gw-app';
const secret = 'gw-proxy-secret.Zx9~never-leaks';
const redirectUrl = 'http://127.0.0.1:9/callback';
const dir = tempDirs()('gw-auth-');

let login: OidcHarness;
let port: number;
let mcpUrl: string;
let proc: ReturnType<typeof spawn> | undefined;
let logs = '';
const seen: string[] = [];

function writeConfig(name: string, rules: string[]): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `mcp:
  port: ${port}
  host: 127.0.0.1
  policies:
    mcpAuthentication:
      mode: strict
      issuer: ${login.issuer}
      audiences: ["api://${clientId}", "${clientId}"]
      provider:
        idpf: {}
      clientId: ${clientId}
      clientSecret: \${IDPF_CLIENT_SECRET}
      resourceMetadata:
        resource: ${mcpUrl}
        scopesSupported: ["api://${clientId}/mcp.tools"]
        bearerMethodsSupported: [header]
    authorization:
      rules:
${rules.map((r) => `        - ${JSON.stringify(r)}`).join('\n')}
  targets:
    - name: local
      stdio:
        cmd: ${JSON.stringify(process.execPath)}
        args: [${JSON.stringify(stdioFixture)}]
        env: { FIXTURE_ID: local }
`,
  );
  return file;
}

function gw(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/gw-cli.ts', ...args], {
    env: { ...process.env, IDPF_CLIENT_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { child, exited, out: () => out };
}

const recordingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  seen.push(JSON.stringify([...res.headers]), await res.clone().text());
  return res;
};

beforeAll(async () => {
  login = await startIdpF({
    tenantId: tenant,
    clientId,
    key: await makeSigningKey('gw-key'),
    roles: ['mcp.user'],
    clients: [webClient(clientId, secret, redirectUrl)],
  });
  port = await freePort();
  mcpUrl = `http://127.0.0.1:${port}/mcp`;
}, 30_000);
afterAll(async () => {
  if (proc && proc.exitCode === null) proc.kill('SIGTERM');
  await login.close();
});

describe('gw proxy with MCP authentication', () => {
  it('rejects a rule that does not compile at validation, naming the rule', async () => {
    const run = gw(['proxy', '--validate-only', '-f', writeConfig('bad.yaml', ['true', '"x" in jwt.roles &&'])]);
    expect(await run.exited).toBe(1);
    expect(run.out()).toContain(
      'bad.yaml: mcp.policies.authorization.rules[1]: "\\"x\\" in jwt.roles &&" is not a valid CEL expression',
    );
  }, 30_000);

  it('runs the SDK OAuth flow through the proxy and enforces the rules on calls and lists', async () => {
    const file = writeConfig('good.yaml', ['"mcp.user" in jwt.roles && (!has(mcp.tool) || mcp.tool != "crash")']);
    const run = gw([
      'proxy',
      '-f',
      file,
      '--log-level',
      'debug',
      '--ready-address',
      '127.0.0.1:0',
      '--metrics-address',
      '127.0.0.1:0',
      '--no-watch',
    ]);
    proc = run.child;
    run.child.stdout?.on('data', (d: Buffer) => (logs += d.toString()));
    run.child.stderr?.on('data', (d: Buffer) => (logs += d.toString()));
    await waitFor(
      async () =>
        (await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`).catch(() => undefined))
          ?.status === 200,
      // A guard on the proxy's readiness: tsx start-up alone took ~21 s at load average 35.
      120_000,
    );

    const unauth = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
    });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await unauth.json()).toEqual({ error: 'unauthorized', error_description: 'JWT token required' });

    const oauth = new TestOAuthProvider(redirectUrl);
    const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth, fetch: recordingFetch });
    await expect(new Client({ name: 'e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(oauth.info?.client_id).toBe(clientId);
    await first.finishAuth(await userAuthorizes(oauth.authorizationUrl!, redirectUrl));

    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth, fetch: recordingFetch }),
    );
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'local:hi' }]);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('crash');
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(/403|forbidden|denies/i);
    await client.close();

    // The seed's raw initialize exchange with the token: 200, SSE, session header, serverInfo.
    const token = oauth.saved?.access_token ?? '';
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    };
    const init = await fetch(mcpUrl, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'curl', version: '1.0' } },
      }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toContain('text/event-stream');
    const session = init.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    const sse = await init.text();
    expect(sse).toMatch(/^event: message$/m);
    const data = JSON.parse(/^data: (.*)$/m.exec(sse)?.[1] ?? '{}') as {
      result?: { protocolVersion?: string; serverInfo?: Record<string, unknown> };
    };
    expect(data.result?.serverInfo).toMatchObject({
      name: expect.any(String),
      title: expect.any(String),
      version: expect.any(String),
    });
    expect(data.result?.protocolVersion).toBeTruthy();

    // A valid token whose call an authorization rule denies: 403 with a JSON error body.
    const denied = await fetch(mcpUrl, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session ?? '', 'mcp-protocol-version': '2025-03-26' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'crash', arguments: {} } }),
    });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: string }).error).toBe('forbidden');

    expect(logs.length).toBeGreaterThan(0);
    for (const text of [...seen, logs]) expect(text).not.toContain(secret);
  }, 180_000);
});
