// `make run` (scripts/run-local.sh: `gw controller --manifests` + `gw proxy` over xDS) on a copy of
// examples/local-mcp with extra manifests, every port free and on loopback; for the browser tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../proxy/ports.js';

const repo = join(import.meta.dirname, '../..');

export interface MakeRun {
  /** The example's copy: write a manifest here and the controller follows. */
  dir: string;
  /** The proxy's admin address (web UI), the controller's (fleet UI), and the example's MCP route. */
  ui: string;
  fleetUi: string;
  mcpUrl: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `make run` with `files` (name → YAML) added to the example; resolves once both UIs are printed. */
export async function startMakeRun(files: Record<string, string>): Promise<MakeRun> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-ui-'));
  cpSync(join(repo, 'examples/local-mcp'), dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const [listen, upstream, xds, health, cmetrics, ready, metrics, admin, cadmin] = await Promise.all(
    Array.from({ length: 9 }, () => freePort()),
  );
  const edit = (file: string, from: string, to: string) =>
    writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replace(from, to));
  edit('gateway.yaml', 'port: 3000', `port: ${listen}`);
  edit('backend.yaml', 'port: 3001', `port: ${upstream}`);
  const { SESSION_KEY: _, ...env } = process.env;
  const child: ChildProcess = spawn('bash', ['scripts/run-local.sh'], {
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
      GW_EXAMPLE_CONTROLLER_ADMIN_PORT: String(cadmin),
    },
  });
  const out = { text: '' };
  const stop = async (): Promise<void> => {
    if (child.pid && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid, 'SIGINT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const take = (c: Buffer): void => {
        out.text += c.toString();
        if (out.text.includes('Fleet UI:')) resolve();
      };
      child.stdout?.on('data', take);
      child.stderr?.on('data', take);
      child.once('exit', (code) =>
        reject(new Error(`scripts/run-local.sh exited (${code}) before the UI was up:\n${out.text}`)),
      );
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    dir,
    ui: `http://127.0.0.1:${admin}/`,
    fleetUi: `http://127.0.0.1:${cadmin}/`,
    mcpUrl: `http://127.0.0.1:${listen}/mcp`,
    output: () => out.text,
    stop,
  };
}
