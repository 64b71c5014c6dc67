// The web UI in a real browser (Debian's Chromium driven by playwright-core) against `make run`
// (scripts/run-local.sh: `gw controller --manifests` + `gw proxy` over xDS) on a copy of examples/local-mcp
// whose route asks for an API key. Each view shows the running proxy's data, the MCP playground calls a
// tool through the authenticated route, and the page logs no console error. Screenshots of each view go
// to .cache/ui-screenshots for review (docs/ui/ holds copies).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../proxy/ports.js';
import { launchChromium } from '../support/chromium.js';

const repo = join(import.meta.dirname, '../..');
const shots = join(repo, '.cache/ui-screenshots');
const KEY = 'sk-ui-playground-7d41c2e9a0';

const policy = `apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: mcp-access, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: mcp}]
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
`;

let dir: string;
let child: ReturnType<typeof spawn>;
let browser: Browser;
let page: Page;
let ui: string;
let mcpUrl: string;
const out = { text: '' };
const consoleErrors: string[] = [];
/** Requests to the admin address that carried the route's key: there must be none. */
const keyToAdmin: string[] = [];

async function startRun(): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'gw-ui-'));
  cpSync(join(repo, 'examples/local-mcp'), dir, { recursive: true });
  writeFileSync(join(dir, 'policy.yaml'), policy);
  const [listen, upstream, xds, health, cmetrics, ready, metrics, admin] = await Promise.all(
    Array.from({ length: 8 }, () => freePort()),
  );
  const edit = (file: string, from: string, to: string) =>
    writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replace(from, to));
  edit('gateway.yaml', 'port: 3000', `port: ${listen}`);
  edit('backend.yaml', 'port: 3001', `port: ${upstream}`);
  const { SESSION_KEY: _, ...env } = process.env;
  child = spawn('bash', ['scripts/run-local.sh'], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      GW_EXAMPLE_DIR: dir,
      GW_EXAMPLE_STATUS_DIR: join(dir, '.status'),
      GW_EXAMPLE_UPSTREAM_PORT: String(upstream),
      GW_EXAMPLE_XDS_PORT: String(xds),
      GW_EXAMPLE_HEALTH_PORT: String(health),
      GW_EXAMPLE_CONTROLLER_METRICS_PORT: String(cmetrics),
      GW_EXAMPLE_READY_PORT: String(ready),
      GW_EXAMPLE_METRICS_PORT: String(metrics),
      GW_EXAMPLE_ADMIN_PORT: String(admin),
    },
  });
  await new Promise<void>((resolve, reject) => {
    const take = (c: Buffer): void => {
      out.text += c.toString();
      if (out.text.includes('Web UI:')) resolve();
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.once('exit', (code) =>
      reject(new Error(`scripts/run-local.sh exited (${code}) before the UI was up:\n${out.text}`)),
    );
  });
  ui = `http://127.0.0.1:${admin}/`;
  mcpUrl = `http://127.0.0.1:${listen}/mcp`;
  expect(out.text).toContain(`Web UI:        ${ui}`);
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
  if (child?.pid) {
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid, 'SIGINT');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

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

  it('LLM: the view renders (the MCP example has no LLM backend)', async () => {
    await open('llm');
    await page.getByTestId('llm').waitFor();
    expect(await page.getByTestId('llm').textContent()).toContain('No LLM backend in this snapshot.');
  });

  it('no view logged a console error, and the key never reached the admin API', () => {
    expect(consoleErrors).toEqual([]);
    expect(keyToAdmin).toEqual([]);
  });
});
