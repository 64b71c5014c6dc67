// Starts `gw controller` (cluster mode) as a child process against the e2e API server, captures its
// JSON log lines, and stops it gracefully (SIGTERM: lease released) or abruptly (SIGKILL: a crash).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(here, '..', '..', '..', '..');
export const e2eLogDir = join(repoRoot, '.cache', 'e2e', 'controller');

export interface ControllerProcess {
  identity: string;
  /** Port of the controller's xDS server on 127.0.0.1. */
  xdsPort: number;
  /** Port of its /healthz and /readyz on 127.0.0.1. */
  healthPort: number;
  /** Port of its Prometheus /metrics on 127.0.0.1. */
  metricsPort: number;
  /** Parsed JSON log lines so far. */
  logs: Record<string, unknown>[];
  /** Log lines whose msg equals `msg`. */
  count(msg: string): number;
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Resolves once the controller logged that its caches are synced (process start is slow on a busy machine). */
  ready(timeoutMs?: number): Promise<void>;
  exited(): boolean;
  /** One line for a failure message: identity, whether it exited (and how), its last log messages. */
  describe(): string;
}

export interface ControllerStart {
  kubeconfig: string;
  identity: string;
  controllerName: string;
  leaderElectionNamespace: string;
  extraArgs?: string[];
  /** Short lease timings for tests (ms). */
  lease?: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
}

export function startController(o: ControllerStart): ControllerProcess {
  mkdirSync(e2eLogDir, { recursive: true });
  const xdsPort = randomPort();
  const healthPort = randomPort();
  const metricsPort = randomPort();
  const args = [
    '--import',
    'tsx',
    join(here, 'run-controller.ts'),
    '--kubeconfig',
    o.kubeconfig,
    '--controller-name',
    o.controllerName,
    '--leader-election-namespace',
    o.leaderElectionNamespace,
    '--log-level',
    'debug',
    '--health-port',
    String(healthPort),
    '--metrics-port',
    String(metricsPort),
    '--xds-port',
    String(xdsPort),
    ...(o.extraArgs ?? []),
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, POD_NAME: o.identity, GW_LISTEN_HOST: '127.0.0.1' };
  if (o.lease)
    Object.assign(env, {
      GW_LEASE_DURATION_MS: String(o.lease.durationMs),
      GW_RENEW_DEADLINE_MS: String(o.lease.renewDeadlineMs),
      GW_RETRY_PERIOD_MS: String(o.lease.retryPeriodMs),
    });
  const child: ChildProcess = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const file = createWriteStream(join(e2eLogDir, `${o.identity}.log`), { flags: 'a' });
  const logs: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    file.write(`${line}\n`);
    try {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // Not a log line (a stray print): kept in the file only.
    }
  });
  child.stderr!.on('data', (d: Buffer) => file.write(d));
  // 'close', not 'exit': every log line the process wrote has been read by then.
  const exit = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    identity: o.identity,
    xdsPort,
    healthPort,
    metricsPort,
    logs,
    count: (msg) => logs.filter((l) => l.msg === msg).length,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    describe: () => {
      const state =
        child.exitCode !== null
          ? `exited ${child.exitCode}`
          : child.signalCode !== null
            ? `killed ${child.signalCode}`
            : 'running';
      const tail = logs
        .slice(-4)
        .map((l) => `${String(l.msg)}${l.err ? ` (${String(l.err)})` : ''}`)
        .join('; ');
      return `${o.identity} ${state}, last: ${tail}`;
    },
    async ready(timeoutMs = 150_000) {
      await eventually(
        async () => (logs.some((l) => l.msg === 'caches synced') ? true : undefined),
        timeoutMs,
        `controller ${o.identity} synced`,
      );
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exit;
      clearTimeout(timer);
      file.end();
    },
  };
}

/** Polls `fn` until it returns a defined value; throws with the last error or value after `timeoutMs`. */
export async function eventually<T>(
  fn: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`${what} not reached within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * A port for the controller's xDS and health listeners: random, so parallel test files do not clash,
 * and below Linux's ephemeral range (32768 up), where the kernel picks the local ports of outgoing
 * connections and of every `listen(0)` in other tests.
 */
function randomPort(): number {
  return 20_000 + Math.floor(Math.random() * 12_000);
}
