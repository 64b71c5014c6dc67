// The controller's fleet view and the caller's MCP catalog in a real browser (Debian's Chromium driven by
// playwright-core) against `make run` (scripts/run-local.sh). The fleet view, served by `gw controller` on
// its own admin address, shows the connected proxy with the version it applied, and the NACK (with the
// proxy's reason) once the folder holds a resource the proxy refuses. The catalog, on the proxy's admin
// address, lists what the route answers each of two API keys: its authorization hides a tool from one.
// Screenshots go to .cache/ui-screenshots (docs/ui/ holds copies).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { startMakeRun, type MakeRun } from '../support/make-run.js';

const shots = join(import.meta.dirname, '../../.cache/ui-screenshots');
const OPS_KEY = 'sk-ui-fleet-ops-52b9e0c4a1';
const ENG_KEY = 'sk-ui-fleet-eng-a07d33f918';

// Every key may list and call; `get-env` is for the ops group only (a Deny rule: hidden from the eng key's list).
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
    authorization:
      action: Deny
      policy:
        matchExpressions: ['apiKey.group != "ops"', 'mcp.tool == "get-env"']
---
apiVersion: v1
kind: Secret
metadata: {name: mcp-keys, namespace: default}
stringData:
  ops: '${JSON.stringify({ key: OPS_KEY, metadata: { group: 'ops' } })}'
  eng: '${JSON.stringify({ key: ENG_KEY, metadata: { group: 'eng' } })}'
`;

// The CRD asks only that agentRuntimeArn start with `arn:`; the proxy refuses a Lambda ARN (test/system/xds-local.test.ts).
const refused = `apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: plain, namespace: default}
spec:
  aws: {agentCore: {agentRuntimeArn: 'arn:aws:lambda:us-east-1:123456789012:function:plain'}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: plain, namespace: default}
spec:
  parentRefs: [{name: local}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /plain}}]
    backendRefs: [{group: gw.dev, kind: GwBackend, name: plain}]
`;

let run: MakeRun;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
/** Requests to either admin address that carried a key: there must be none. */
const keyToAdmin: string[] = [];

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  run = await startMakeRun({ files: { 'policy.yaml': policy } });
  await run.ready;
  expect(run.output()).toContain(`Fleet UI:      ${run.fleetUi}`);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(err.message));
  page.on('request', (r) => {
    const headers = JSON.stringify(r.headers());
    const admin = r.url().startsWith(run.ui) || r.url().startsWith(run.fleetUi);
    if (admin && (headers.includes(OPS_KEY) || headers.includes(ENG_KEY))) keyToAdmin.push(r.url());
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await run?.stop();
}, 60_000);

/** The proxy's own account of the snapshot it holds (its admin API). */
async function proxyVersion(): Promise<string> {
  const o = (await (await fetch(`${run.ui}ui/api/v1/overview`)).json()) as { xds: { version: string; ack: string } };
  return o.xds.ack === 'ACK' ? o.xds.version : '';
}

const proxyRow = () =>
  page.locator('[data-gateway="default/local"]').getByTestId('proxy-row').filter({ hasText: 'make-run' });

describe('the controller fleet view and the caller catalog against make run', () => {
  it('fleet: the gateway, its connected proxy and the version the proxy applied', async () => {
    await expect.poll(proxyVersion, { timeout: 20_000 }).toMatch(/^[0-9a-f]{8,}$/);
    const applied = await proxyVersion();
    await page.goto(`${run.fleetUi}#fleet`);
    await proxyRow().waitFor();
    await expect
      .poll(() => proxyRow().getByTestId('applied-version').getAttribute('title'), { timeout: 10_000 })
      .toBe(applied);
    expect(await proxyRow().getByTestId('last-reply').textContent()).toMatch(/^ACK/);
    expect(await page.locator('h1').textContent()).toBe('Gw controller');
    // The controller's page offers the fleet only: the proxy's pages are not on its nav.
    expect(await page.locator('nav button').allTextContents()).toEqual(['Fleet']);
    await page.screenshot({ path: join(shots, 'fleet.png'), fullPage: true });
  });

  it('catalog: the route lists get-env to the ops key and hides it from the eng key', async () => {
    await page.goto(`${run.ui}#catalog`);
    await page.getByTestId('connect-form').waitFor();
    expect(await page.locator('input[name=url]').inputValue()).toBe(run.mcpUrl);
    const listAs = async (key: string): Promise<string[]> => {
      await page.locator('input[name=token]').fill(key);
      await page.getByRole('button', { name: 'List as this caller' }).click();
      await page.getByTestId('catalog-prompts').waitFor();
      return page.getByTestId('catalog-tools').locator('[data-testid=catalog-item] code').allTextContents();
    };
    const ops = await listAs(OPS_KEY);
    expect(ops).toContain('get-env');
    expect(ops).toContain('echo');
    expect(await page.getByTestId('catalog-prompts').getByTestId('catalog-item').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(shots, 'catalog.png'), fullPage: true });
    const eng = await listAs(ENG_KEY);
    expect(eng).toContain('echo');
    expect(eng).not.toContain('get-env');
    expect(eng.length).toBe(ops.length - 1);
    // The list is the route's own answer: a call of the hidden tool with the eng key is refused there too.
    const bare = await fetch(run.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(bare.status).toBe(401);
  });

  it('fleet: a resource the proxy refuses shows as its NACK with the reason, the rest still applied', async () => {
    writeFileSync(join(run.dir, 'refused.yaml'), refused);
    await page.goto(`${run.fleetUi}#fleet`);
    await expect
      .poll(
        () =>
          proxyRow()
            .getByTestId('proxy-refusals')
            .textContent()
            .catch(() => ''),
        { timeout: 30_000 },
      )
      .toContain('must be an AgentCore runtime ARN');
    expect(await proxyRow().getByTestId('proxy-refusals').textContent()).toContain('backend/GwBackend/default/plain');
    const reply = await proxyRow().getByTestId('last-reply').textContent();
    expect(reply).toMatch(/^NACK/);
    expect(reply).toContain('must be an AgentCore runtime ARN');
    // The rest of that update was applied: the example's route still answers through its pipeline.
    const bare = await fetch(run.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(bare.status).toBe(401);
    await page.screenshot({ path: join(shots, 'fleet-nack.png'), fullPage: true });
  });

  it('no view logged a console error, and no key reached an admin address', () => {
    expect(consoleErrors).toEqual([]);
    expect(keyToAdmin).toEqual([]);
  });
});
