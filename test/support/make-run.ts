// `make run` / `make run-llm` (scripts/run-local.sh: `gw controller --manifests` + `gw proxy` over xDS) on
// a copy of examples/local-mcp or examples/local-llm, with manifests added or removed and every port free
// and on loopback. Every port the script takes is passed, the fleet UI's too: a default left in place
// collides with any controller the parallel suite starts without --admin-address (it takes 9094).
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../proxy/ports.js';

const repo = join(import.meta.dirname, '../..');

/** The banner's last line, printed once both processes are ready (scripts/run-local.sh). */
const BANNER_END = 'Ctrl-C drains and stops everything';

export interface MakeRunOptions {
  /** `make run` (mcp, the default) or `make run-llm` (llm). */
  example?: 'mcp' | 'llm';
  /** Files (name → YAML) written into the example's copy. */
  files?: Record<string, string>;
  /** Files removed from the example's copy. */
  remove?: string[];
}

export interface MakeRun {
  /** The example's copy: write a manifest here and the controller follows. */
  dir: string;
  /** The proxy's admin address (web UI), the controller's (fleet UI), and the example's MCP route. */
  ui: string;
  fleetUi: string;
  mcpUrl: string;
  /** The listener, http://127.0.0.1:<port> (the LLM example's base URL is this + /v1). */
  origin: string;
  /** Everything the script printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once the banner is printed; rejects with the script's output if it exits first (then stopped). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the example. Keep the handle before awaiting `ready`, so a test that times out waiting still stops
 * it (the script's process group holds ports until it does).
 */
export async function startMakeRun(options: MakeRunOptions = {}): Promise<MakeRun> {
  const example = options.example ?? 'mcp';
  const dir = mkdtempSync(join(tmpdir(), `gw-run-${example}-`));
  cpSync(join(repo, `examples/local-${example}`), dir, { recursive: true });
  for (const name of options.remove ?? []) rmSync(join(dir, name));
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), text);
  const [listen, upstream, xds, health, cmetrics, ready, metrics, admin, cadmin] = await Promise.all(
    Array.from({ length: 9 }, () => freePort()),
  );
  const edit = (file: string, from: string, to: string) =>
    writeFileSync(join(dir, file), readFileSync(join(dir, file), 'utf8').replace(from, to));
  edit('gateway.yaml', 'port: 3000', `port: ${listen}`);
  edit('backend.yaml', example === 'llm' ? 'port: 3002' : 'port: 3001', `port: ${upstream}`);
  const { SESSION_KEY: _, ...env } = process.env;
  const child: ChildProcess = spawn('bash', ['scripts/run-local.sh'], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      GW_EXAMPLE: example,
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
    if (child.pid && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(-child.pid, 'SIGINT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const started = new Promise<void>((resolve, reject) => {
    const take = (c: Buffer): void => {
      out.text += c.toString();
      if (out.text.includes(BANNER_END)) resolve();
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.once('exit', (code) =>
      reject(new Error(`scripts/run-local.sh (${example}) exited (${code}) before its banner:\n${out.text}`)),
    );
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return {
    ready: started,
    dir,
    ui: `http://127.0.0.1:${admin}/`,
    fleetUi: `http://127.0.0.1:${cadmin}/`,
    mcpUrl: `http://127.0.0.1:${listen}/mcp`,
    origin: `http://127.0.0.1:${listen}`,
    output: () => out.text,
    stop,
  };
}
