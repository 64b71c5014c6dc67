// A real SPIRE deployment for the workload-identity tests: the server and the agent of github.com/spiffe/spire,
// built from Go modules into one binary by `make spire` (test/spire). The server keeps its data in sqlite in a
// temporary directory; the agent attests with a join token; one registration entry gives this test process
// (unix workload attestor, by uid) the SPIFFE ID `spiffe://gw.test/gw-proxy` with a short X.509 SVID TTL.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../ports.js';

const binary = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../spire/bin/gw-spire');
const run = promisify(execFile);

export const TRUST_DOMAIN = 'gw.test';
export const PROXY_ID = `spiffe://${TRUST_DOMAIN}/gw-proxy`;

export interface SpireOptions {
  /** X.509 SVID lifetime of the test's entry, seconds; the agent rotates at about half of it. */
  svidTtlSeconds: number;
}

export class Spire {
  private constructor(
    readonly agentSocket: string,
    private readonly dir: string,
    private readonly procs: ChildProcess[],
  ) {}

  /** `SPIFFE_ENDPOINT_SOCKET` of the agent. */
  get endpoint(): string {
    return `unix://${this.agentSocket}`;
  }

  static async start(o: SpireOptions): Promise<Spire> {
    if (!existsSync(binary))
      throw new Error(`${binary} is missing: run \`make spire\` (builds SPIRE's server and agent from test/spire)`);
    // A short path: unix socket paths are limited to about 100 bytes.
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-spire-'));
    const port = await freePort();
    const serverSocket = path.join(dir, 'server.sock');
    const agentSocket = path.join(dir, 'agent.sock');
    writeFileSync(path.join(dir, 'server.conf'), serverConfig(dir, port, serverSocket));
    const procs: ChildProcess[] = [];
    const spire = new Spire(agentSocket, dir, procs);
    try {
      procs.push(daemon(['server', 'run', '-config', path.join(dir, 'server.conf')], 'server'));
      await until(() => cli(['server', 'healthcheck', '-socketPath', serverSocket]), procs[0]!, 'SPIRE server');
      // `Token: <uuid>`, then (on stdout too) a warning that the token names no extra SPIFFE ID.
      const generated = await cli(['server', 'token', 'generate', '-socketPath', serverSocket, '-ttl', '600']);
      const token = /Token:\s*(\S+)/.exec(generated)?.[1];
      if (!token) throw new Error(`SPIRE server token generate printed no token: ${generated}`);
      await cli([
        'server', 'entry', 'create', '-socketPath', serverSocket,
        '-parentID', `spiffe://${TRUST_DOMAIN}/spire/agent/join_token/${token}`,
        '-spiffeID', PROXY_ID,
        '-selector', `unix:uid:${process.getuid?.() ?? 0}`,
        '-x509SVIDTTL', String(o.svidTtlSeconds),
      ]); // prettier-ignore
      writeFileSync(path.join(dir, 'agent.conf'), agentConfig(dir, port, agentSocket, token));
      procs.push(daemon(['agent', 'run', '-config', path.join(dir, 'agent.conf')], 'agent'));
      await until(() => cli(['agent', 'healthcheck', '-socketPath', agentSocket]), procs[1]!, 'SPIRE agent');
      return spire;
    } catch (err) {
      await spire.stop();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.procs.map((p) => {
        if (p.exitCode !== null || p.signalCode !== null) return undefined;
        const exited = new Promise((r) => p.once('exit', r));
        p.kill('SIGTERM');
        return exited;
      }),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function serverConfig(dir: string, port: number, socket: string): string {
  return `server {
  bind_address = "127.0.0.1"
  bind_port = "${port}"
  socket_path = "${socket}"
  trust_domain = "${TRUST_DOMAIN}"
  data_dir = "${dir}/server-data"
  log_level = "WARN"
  ca_ttl = "24h"
}
plugins {
  DataStore "sql" { plugin_data { database_type = "sqlite3" connection_string = "${dir}/datastore.sqlite3" } }
  KeyManager "memory" { plugin_data {} }
  NodeAttestor "join_token" { plugin_data {} }
}
`;
}

function agentConfig(dir: string, port: number, socket: string, token: string): string {
  return `agent {
  data_dir = "${dir}/agent-data"
  log_level = "WARN"
  server_address = "127.0.0.1"
  server_port = "${port}"
  socket_path = "${socket}"
  trust_domain = "${TRUST_DOMAIN}"
  insecure_bootstrap = true
  join_token = "${token}"
}
plugins {
  NodeAttestor "join_token" { plugin_data {} }
  KeyManager "memory" { plugin_data {} }
  WorkloadAttestor "unix" { plugin_data {} }
}
`;
}

const logs = new Map<string, string>();

function daemon(args: string[], name: string): ChildProcess {
  const p = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  logs.set(name, '');
  const keep = (c: Buffer) => logs.set(name, ((logs.get(name) ?? '') + c.toString()).slice(-4000));
  p.stdout?.on('data', keep);
  p.stderr?.on('data', keep);
  return p;
}

async function cli(args: string[]): Promise<string> {
  const { stdout } = await run(binary, args, { timeout: 30_000 });
  return stdout;
}

/** Retries `check` (a health check command) until it succeeds, the daemon exits, or 60 s pass. */
async function until(check: () => Promise<unknown>, proc: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`${what} did not become healthy: ${(err as Error).message}\n${[...logs.values()].join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
