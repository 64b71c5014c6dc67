// The web UI in a real browser (Debian's Chromium driven by playwright-core) against `make run`
// (scripts/run-local.sh: `gw controller --manifests` + `gw proxy` over xDS) on a copy of examples/local-mcp
// whose route asks for an API key, plus a route to an LLM backend in front of the fake OpenAI server
// (scripts/fake-openai.mjs) and an access log on the listener. Each view shows the running proxy's data, the
// MCP and LLM playgrounds call through the authenticated routes, the charts move under load, the access-log
// tail shows requests as its filter lets them through, the CEL playground evaluates on the proxy, and the page
// logs no console error. Screenshots of each view go to .cache/ui-screenshots for review (docs/ui/ holds copies).
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../proxy/ports.js';
import { launchChromium } from '../support/chromium.js';
import { startMakeRun, type MakeRun } from '../support/make-run.js';

const repo = join(import.meta.dirname, '../..');
const shots = join(repo, '.cache/ui-screenshots');
const KEY = 'sk-ui-playground-7d41c2e9a0';

const policy = `apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: mcp-access, namespace: default}
spec:
  targetRefs:
    - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: mcp}
    - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: llm}
  traffic:
    cors:
      allowOrigins: ["*"]
      allowHeaders: [authorization, content-type, mcp-session-id, mcp-protocol-version]
      exposeHeaders: [Mcp-Session-Id]
    apiKeyAuthentication:
      secretRef: {name: mcp-keys}
---
apiVersion: v1
kind: Secret
metadata: {name: mcp-keys, namespace: default}
stringData: {playground: ${KEY}}
---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: access-log, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: local}]
  frontend:
    accessLog:
      filter: '!request.path.startsWith("/filtered-out")'
`;

/** A route to an LLM backend in front of the fake OpenAI server on \`port\`. */
const llm = (port: number) => `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: llm, namespace: default}
spec:
  ai:
    groups:
      - providers:
          - name: openai
            openai: {model: gpt-4o-mini}
            host: 127.0.0.1
            port: ${port}
            policies: {auth: {secretRef: {name: openai-key}}}
---
apiVersion: v1
kind: Secret
metadata: {name: openai-key, namespace: default}
stringData: {Authorization: sk-local-example}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: llm, namespace: default}
spec:
  parentRefs: [{name: local}]
  rules:
    - matches: [{path: {type: PathPrefix, value: /v1}}]
      backendRefs: [{group: gw.dev, kind: GwBackend, name: llm}]
`;

let run: MakeRun | undefined;
let openai: ReturnType<typeof spawn>;
let browser: Browser;
let page: Page;
let ui: string;
let mcpUrl: string;
let chatUrl: string;
const consoleErrors: string[] = [];
/** Requests to the admin address that carried the route's key: there must be none. */
const keyToAdmin: string[] = [];

async function startRun(): Promise<void> {
  const llmPort = await freePort();
  openai = spawn(process.execPath, ['scripts/fake-openai.mjs', String(llmPort)], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    openai.stdout?.once('data', () => resolve());
    openai.once('exit', (code) => reject(new Error(`scripts/fake-openai.mjs exited (${code})`)));
  });
  run = await startMakeRun({ files: { 'policy.yaml': policy, 'llm.yaml': llm(llmPort) } });
  await run.ready;
  ui = run.ui;
  mcpUrl = run.mcpUrl;
  chatUrl = `${run.origin}/v1/chat/completions`;
  expect(run.output()).toContain(`Web UI:        ${ui}`);
}

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  await startRun();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(err.message));
  page.on('request', (r) => {
    if (r.url().startsWith(ui) && JSON.stringify(r.headers()).includes(KEY)) keyToAdmin.push(r.url());
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await run?.stop();
  openai?.kill();
}, 60_000);

/** An MCP initialize through the route with the key (load for the charts and the tail). */
async function mcpInitialize(): Promise<void> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${KEY}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ui-test', version: '1' } },
    }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

/** A chat completion through the LLM route with the key (its usage counts tokens). */
async function chat(content: string): Promise<void> {
  const res = await fetch(chatUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

async function open(name: string): Promise<void> {
  await page.goto(`${ui}#${name}`);
}

describe('the web UI against make run', () => {
  it('overview: the snapshot version the controller sent and its ACK', async () => {
    await open('overview');
    await expect.poll(() => page.getByTestId('ack').textContent(), { timeout: 10_000 }).toContain('ACK');
    expect(await page.getByTestId('snapshot-version').textContent()).toMatch(/^[0-9a-f]{8,}$/);
    expect(await page.getByTestId('overview').textContent()).toContain('default/local');
    await page.screenshot({ path: join(shots, 'overview.png'), fullPage: true });
  });

  it("routes: the example's route with its effective policy fields and the GwPolicy that set them", async () => {
    await open('routes');
    const row = page.getByTestId('route-row').filter({ hasText: 'HTTPRoute/default/mcp/0' });
    await row.waitFor();
    expect(await row.textContent()).toContain('PathPrefix /mcp');
    expect(await row.textContent()).toContain('GwBackend/default/everything');
    const policy = await row.getByTestId('route-policy').textContent();
    expect(policy).toContain('traffic.apiKeyAuthentication');
    expect(policy).toContain('set by GwPolicy default/mcp-access');
    expect(policy).toContain('traffic.cors');
    await page.screenshot({ path: join(shots, 'routes.png'), fullPage: true });
  });

  it('listeners and backends: the bound port and the MCP backend', async () => {
    await open('listeners');
    await page.getByTestId('listeners').waitFor();
    expect(await page.getByTestId('listeners').textContent()).toContain(`127.0.0.1:${new URL(mcpUrl).port}`);
    expect(await page.getByTestId('backends').textContent()).toContain('1 MCP target(s)');
    await page.screenshot({ path: join(shots, 'listeners.png'), fullPage: true });
  });

  it('MCP: the target, its passive health and the active session count', async () => {
    await open('mcp');
    const row = page.getByTestId('target-row').filter({ hasText: 'everything' });
    await row.waitFor();
    expect(await row.textContent()).toContain('serving');
    expect(await page.getByTestId('sessions').textContent()).toMatch(/^\d+$/);
    await page.screenshot({ path: join(shots, 'mcp.png'), fullPage: true });
  });

  it('MCP playground: initialize, list tools and call echo through the route with the pasted key', async () => {
    // The route is guarded: the same call without the key is refused by the route's own pipeline.
    const bare = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(bare.status).toBe(401);
    await open('playground');
    await page.getByTestId('connect-form').waitFor();
    expect(await page.locator('input[name=url]').inputValue()).toBe(mcpUrl);
    await page.locator('input[name=token]').fill(KEY);
    await page.getByRole('button', { name: 'Initialize and list tools' }).click();
    await page.getByTestId('tool-select').waitFor();
    await page.getByTestId('tool-select').selectOption('echo');
    await page.getByTestId('tool-form').locator('input[name=message]').fill('hello from the browser');
    await page.getByRole('button', { name: 'Call tool' }).click();
    await expect
      .poll(() => page.getByTestId('tool-result').textContent(), { timeout: 10_000 })
      .toContain('hello from the browser');
    const log = await page.getByTestId('rpc-log').textContent();
    for (const method of ['initialize', 'tools/list', 'tools/call']) expect(log).toContain(`"method": "${method}"`);
    await page.screenshot({ path: join(shots, 'playground.png'), fullPage: true });
  });

  it("client setup: snippets for common MCP clients with the route's URL and a token placeholder", async () => {
    await open('clients');
    await page.getByTestId('snippets').waitFor();
    const text = await page.getByTestId('snippets').textContent();
    expect(text).toContain(`claude mcp add --transport http gw ${mcpUrl}`);
    expect(text).toContain('"mcpServers"');
    expect(text).toContain('Bearer <your token>');
    await page.screenshot({ path: join(shots, 'clients.png'), fullPage: true });
  });

  it('LLM: the provider of the LLM backend and its passive health', async () => {
    await open('llm');
    await page.getByTestId('llm').waitFor();
    const text = await page.getByTestId('llm').textContent();
    expect(text).toContain('GwBackend/default/llm');
    expect(text).toContain('openai');
  });

  it('LLM playground: a streamed chat through the authenticated route with the pasted key', async () => {
    const bare = await fetch(chatUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(bare.status).toBe(401);
    await open('llm-playground');
    await page.getByTestId('chat-form').waitFor();
    expect(await page.locator('input[name=url]').inputValue()).toBe(chatUrl);
    await page.locator('input[name=token]').fill(KEY);
    await page.locator('input[name=model]').fill('gpt-4o-mini');
    await page.locator('textarea[name=prompt]').fill('hello from the browser');
    await page.getByRole('button', { name: 'Send (streamed)' }).click();
    await expect
      .poll(() => page.getByTestId('chat-answer').textContent(), { timeout: 10_000 })
      .toBe('You said: hello from the browser');
    await expect.poll(() => page.getByTestId('chat-usage').textContent()).toContain('5 input, 4 output tokens');
    await page.screenshot({ path: join(shots, 'llm-playground.png'), fullPage: true });
  });

  it('charts: requests by route and tokens by model rise under load through the routes', async () => {
    await open('charts');
    await page.getByTestId('chart-requests').waitFor();
    const peak = (chart: string, series: string) =>
      page
        .locator(`[data-testid=chart-${chart}] polyline[data-series="${series}"]`)
        .getAttribute('data-peak', { timeout: 1000 })
        .then(Number, () => 0);
    // Load while the page reads: each round sends a request through each route, until both series rose.
    await expect
      .poll(
        async () => {
          await Promise.all([mcpInitialize(), chat('load')]);
          return Math.min(await peak('requests', 'HTTPRoute/default/mcp/0'), await peak('tokens', 'gpt-4o-mini'));
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBeGreaterThan(0);
    expect(await page.getByTestId('chart-classes').textContent()).toContain('2xx');
    // A few more reads for the screenshot: the line of the route is drawn from them.
    const line = page.locator('[data-testid=chart-requests] polyline[data-series="HTTPRoute/default/mcp/0"]');
    await expect
      .poll(async () => ((await line.getAttribute('points')) ?? '').split(' ').length, { timeout: 15_000 })
      .toBeGreaterThan(6);
    expect(await page.getByTestId('chart-latency').textContent()).toContain('HTTPRoute/default/llm/0');
    await page.screenshot({ path: join(shots, 'charts.png'), fullPage: true });
  });

  it("access log: requests appear in the live tail as the listener's filter lets them through", async () => {
    await open('access-log');
    await expect
      .poll(() => page.getByTestId('access-log').textContent(), { timeout: 10_000 })
      .toContain('Listeners with an access log: default/local/http');
    await fetch(`${new URL(mcpUrl).origin}/filtered-out`);
    await mcpInitialize();
    const row = page.getByTestId('access-row').filter({ hasText: 'path=/mcp' }).first();
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain('route=HTTPRoute/default/mcp/0');
    const all = await page.getByTestId('access-log').textContent();
    expect(all).not.toContain('/filtered-out');
    expect(all).not.toContain('mcp_session');
    expect(all).not.toContain(KEY);
    await page.screenshot({ path: join(shots, 'access-log.png'), fullPage: true });
  });

  it("CEL playground: evaluates on the proxy and reports an error in the proxy's words", async () => {
    await open('cel');
    await page.getByTestId('cel-playground').waitFor();
    await page.locator('textarea[name=expression]').fill('jwt.sub == "alice" && "ops" in jwt.groups');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await expect.poll(() => page.getByTestId('cel-result').textContent()).toBe('true (bool)');
    await page.locator('select[name=use]').selectOption('extAuth');
    await page.locator('textarea[name=expression]').fill('mcp.tool == "echo"');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await expect
      .poll(() => page.getByTestId('cel-result').textContent())
      .toBe('compile error: expression names unknown variable "mcp"; known variables are request, jwt');
    await page.locator('select[name=use]').selectOption('authorization');
    await page.locator('textarea[name=expression]').fill('request.headers["x-team"] + "/" + mcp.tool');
    await page.getByRole('button', { name: 'Evaluate' }).click();
    await expect.poll(() => page.getByTestId('cel-result').textContent()).toBe('"payments/echo" (string)');
    await page.screenshot({ path: join(shots, 'cel.png'), fullPage: true });
  });

  it('no view logged a console error, and the key never reached the admin API', () => {
    expect(consoleErrors).toEqual([]);
    expect(keyToAdmin).toEqual([]);
  });
});
