// The MCP conformance suite's 2026-07-28 server scenarios (@modelcontextprotocol/conformance 0.2.0-alpha.12,
// `--requirements 2026-07-28`: the 37 required ones and the extension / pending ones it runs unscored) against
// Gw's own 2026 everything server (test/fixtures/mcp-2026-everything.mjs, @modelcontextprotocol/server 2.4)
// directly, through a standalone Gw proxy, and through a Gw proxy fed by the controller over xDS: every scenario
// that passes directly must pass through Gw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverything2026, type UrlServer } from '../fixtures/url-server.js';
import {
  GwUnderTest,
  installSuite,
  lostThrough,
  requiredServerScenarios,
  runSuite,
  type Suite,
} from '../support/mcp-conformance.js';

const SUITE_VERSION = '0.2.0-alpha.12';
const REVISION = '2026-07-28';

describe('MCP conformance, revision 2026-07-28 (server scenarios)', () => {
  let suite: Suite;
  let dir: string;
  let gw: GwUnderTest;
  let everything: UrlServer;

  beforeAll(async () => {
    suite = await installSuite(SUITE_VERSION);
    dir = mkdtempSync(join(tmpdir(), 'gw-conformance-2026-'));
    gw = new GwUnderTest(dir);
    everything = await startEverything2026();
    gw.adopt(everything.child);
  }, 600_000);

  afterAll(async () => {
    await gw?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes through Gw (standalone and xDS-fed) every scenario the 2026 reference server passes directly', async () => {
    const args = ['--requirements', REVISION];
    const direct = await runSuite(suite, everything.url, args);
    // The reference server itself passes every scenario the revision requires.
    const required = await requiredServerScenarios(suite, REVISION);
    expect(required.length).toBe(37);
    expect(
      required.filter((s) => direct.get(s) !== true),
      'required scenarios the reference server fails',
    ).toEqual([]);
    const standalone = await runSuite(suite, await gw.standalone(everything.url), args);
    const fed = await runSuite(suite, await gw.xds(everything.url), args);
    // Both proxies are compared before either fails, so one run names every scenario lost on either path.
    expect(
      { standalone: lostThrough(direct, standalone), xds: lostThrough(direct, fed) },
      'scenarios that pass directly but fail through the standalone or the xDS-fed proxy',
    ).toEqual({ standalone: [], xds: [] });
  }, 600_000);
});
