// The MCP conformance suite (@modelcontextprotocol/conformance 0.1, server scenarios of the 2025 revisions)
// against the MCP "everything" reference server directly, through a standalone Gw proxy, and through a Gw
// proxy fed by the controller over xDS: every scenario that passes directly must pass through Gw.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../system/harness.js';
import { GwUnderTest, installSuite, lostThrough, runSuite, type Suite } from '../support/mcp-conformance.js';

const repo = join(import.meta.dirname, '../..');
const SUITE_VERSION = '0.1.16';

describe('MCP conformance (server scenarios)', () => {
  let suite: Suite;
  let dir: string;
  let gw: GwUnderTest;
  let everything: string;

  beforeAll(async () => {
    suite = await installSuite(SUITE_VERSION);
    dir = mkdtempSync(join(tmpdir(), 'gw-conformance-'));
    gw = new GwUnderTest(dir);
    const port = await freePort();
    gw.adopt(
      spawn(process.execPath, [join(repo, 'scripts/mcp-everything-http.mjs'), String(port)], { stdio: 'ignore' }),
    );
    everything = `http://127.0.0.1:${port}/mcp`;
    await waitFor(
      'the everything server',
      async () => (await fetch(everything, { method: 'DELETE' }).catch(() => undefined)) !== undefined,
      20_000,
    );
  }, 600_000);

  afterAll(async () => {
    await gw?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes through Gw (standalone and xDS-fed) every scenario the reference server passes directly', async () => {
    const direct = await runSuite(suite, everything);
    const standalone = await runSuite(suite, await gw.standalone(everything));
    const fed = await runSuite(suite, await gw.xds(everything));
    expect([...direct.values()].filter(Boolean).length).toBeGreaterThan(10);
    expect(
      lostThrough(direct, standalone),
      'scenarios that pass directly but fail through the standalone proxy',
    ).toEqual([]);
    expect(lostThrough(direct, fed), 'scenarios that pass directly but fail through the xDS-fed proxy').toEqual([]);
    // The reference server does not check Origin; Gw does (docs/proxy.md "DNS-rebinding protection").
    expect(standalone.get('dns-rebinding-protection')).toBe(true);
    expect(fed.get('dns-rebinding-protection')).toBe(true);
  }, 600_000);
});
