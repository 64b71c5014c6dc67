// `gw proxy --workers N`: N worker processes (node:cluster) share the proxy's listeners so every core
// serves traffic. The primary serves no traffic: it hands all workers one session key (so a session
// begun on one worker resumes on any other), serves readiness (ready when every worker is) and metrics
// (every worker's, aggregated), and replaces a worker that dies. docs/proxy.md "Workers".
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { startOps } from '../proxy/ops.js';
import type { SessionRegistry } from '../proxy/mcp/sessions.js';

export const workersFlag = { workers: { type: 'string' as const } };
export const workersHelp = `      --workers <n|auto>     Worker processes sharing the listeners (default auto: the CPUs available, ${availableParallelism()} here; env GW_WORKERS)`;

/**
 * --workers, else GW_WORKERS, else the CPUs this process may use (`auto`). Deployed pods set GW_WORKERS
 * from their CPU limit, since a container sees the node's CPUs (docs/proxy.md "Workers").
 */
export function resolveWorkers(flag: string | undefined, env: Record<string, string | undefined>): number {
  const raw = flag ?? env.GW_WORKERS;
  if (raw === undefined || raw === '' || raw === 'auto') return availableParallelism();
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 1024)
    throw new Error(`--workers must be auto or a whole number from 1 to 1024, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/**
 * V8's young generation per worker, in MiB per semi-space. Node's default lets it grow to 16 (32 MiB of new
 * space, resident once a worker has served load): about 40 % of an idle worker. docs/performance.md "Issue 42".
 * The minimum is set to the same size: V8 starts the young generation at 1 MiB and grows it only as objects
 * survive, which a proxy's short-lived calls rarely do, so a worker would scavenge at the small size (traced at
 * 300 req/s: about a third more pauses per call) while the memory budget already allows this one.
 */
export const WORKER_SEMI_SPACE_MIB = 4;
const SEMI_SPACE_FLAG = /^--(?:max|min)[-_]semi[-_]space[-_]size(?:=|$)/;

/**
 * The Node flags each worker starts with: the primary's own (so `--import` hooks and the like carry over),
 * plus the young generation's fixed size unless the user chose a semi-space size (flag or NODE_OPTIONS).
 */
export function workerExecArgv(execArgv: readonly string[], nodeOptions = ''): string[] {
  const chosen = [...execArgv, ...nodeOptions.split(/\s+/)].some((f) => SEMI_SPACE_FLAG.test(f));
  const size = WORKER_SEMI_SPACE_MIB;
  return chosen ? [...execArgv] : [...execArgv, `--min-semi-space-size=${size}`, `--max-semi-space-size=${size}`];
}

export interface PrimaryOptions {
  workers: number;
  readyAddress: string;
  metricsAddress: string;
  log: Logger;
  env: Record<string, string | undefined>;
}

/** Runs the primary until SIGINT/SIGTERM; resolves with the exit code. */
export async function runPrimary(opts: PrimaryOptions): Promise<number> {
  const { log } = opts;
  const env = workerEnv(opts);
  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv, opts.env.NODE_OPTIONS) });
  const ready = new Map<number, boolean>();
  let stopping = false;
  const fork = (): Worker => {
    const worker = cluster.fork(env);
    ready.set(worker.id, false);
    worker.on('message', (m: unknown) => {
      if (isEndedMessage(m)) {
        // A session ended on one worker: the others must not resume it (stdio-only sessions have no
        // target to tell them). The ending worker answers its DELETE once every other one knows.
        const others = Object.values(cluster.workers ?? {}).filter(
          (w): w is Worker => w !== undefined && w !== worker && w.isConnected(),
        );
        void Promise.all(others.map((w) => tellEnded(w, m))).then(() => {
          if (worker.isConnected()) worker.send({ gw: 'ended-done', digest: m.digest });
        });
        return;
      }
      if (!isReadyMessage(m)) return;
      ready.set(worker.id, m.ready);
      started ||= m.ready;
    });
    return worker;
  };
  let started = false;
  let failedEarly: number | undefined;
  let failed = (code: number): void => void (failedEarly = code);
  cluster.on('exit', (worker, code, signal) => {
    ready.delete(worker.id);
    if (stopping) return;
    if (!started) {
      // A worker that fails before any worker was ready has a bad configuration: every replacement would too.
      log.error({ worker: worker.id, code, signal }, 'proxy worker failed to start');
      failed(code || 1);
      return;
    }
    log.error({ worker: worker.id, code, signal }, 'proxy worker exited; starting another');
    fork();
  });
  // The ops ports first: a taken port ends the primary with one line before any worker starts.
  const aggregator = new AggregatorRegistry();
  let ops: Awaited<ReturnType<typeof startOps>>;
  try {
    ops = await startOps({
      readyAddress: opts.readyAddress,
      metricsAddress: opts.metricsAddress,
      isReady: () => ready.size === opts.workers && [...ready.values()].every(Boolean),
      registry: { metrics: () => aggregator.clusterMetrics(), contentType: aggregator.contentType },
    });
  } catch (err) {
    console.error(`gw proxy: ${(err as Error).message}`);
    return 1;
  }
  for (let i = 0; i < opts.workers; i++) fork();
  log.info({ workers: opts.workers, ready: ops.readyPort, metrics: ops.metricsPort }, 'proxy primary started');
  return new Promise<number>((resolve) => {
    const stop = (signal: string, code = 0): void => {
      if (stopping) {
        log.warn({ signal }, 'second signal: workers exit without waiting for the drain');
        tell(signal);
        return;
      }
      stopping = true;
      log.info({ signal }, 'shutting down workers: draining; a second Ctrl-C (or signal) exits at once');
      const workers = live();
      const exited = workers.map((w) => new Promise<void>((r) => (w.isDead() ? r() : w.once('exit', () => r()))));
      tell(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
      void Promise.all(exited)
        .then(() => ops.close())
        .then(() => resolve(code));
    };
    failed = (code) => stop('worker start failure', code);
    if (failedEarly !== undefined) failed(failedEarly);
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
}

/** The environment every worker gets: one SESSION_KEY for all when none is set. */
function workerEnv(opts: PrimaryOptions): Record<string, string> {
  if (opts.env.SESSION_KEY) return {};
  // One key for every worker, made once: a per-worker key would make sessions fail across workers.
  opts.log.warn(
    'SESSION_KEY is not set: MCP session ids are sealed with a random key of this proxy, so they resume on its workers but not on other replicas',
  );
  return { SESSION_KEY: randomBytes(32).toString('base64') };
}

const live = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);

/** Workers drain as a single process would (SIGINT skips the minimum delay); a second signal ends them at once. */
function tell(signal: string): void {
  for (const w of live()) if (w.isConnected()) w.send({ gw: 'signal', signal });
}

/**
 * In a worker: tells the primary whether this worker is ready, offers its metrics to the primary's
 * aggregation, and passes ended sessions to and from the other workers.
 */
export function reportToPrimary(isReady: () => boolean, registry: Registry, sessions: SessionRegistry): void {
  const waiting = new Map<string, () => void>();
  sessions.onEndedEverywhere = (digest, expiresAt) =>
    new Promise<void>((resolve) => {
      if (!process.connected) return resolve();
      const timer = setTimeout(resolve, endedWaitMs);
      waiting.set(digest, () => {
        clearTimeout(timer);
        resolve();
      });
      process.send?.({ gw: 'ended', digest, expiresAt });
    });
  process.on('message', (m: unknown) => {
    const msg = m as { gw?: unknown; digest?: unknown };
    if (isEndedMessage(m))
      void sessions
        .endedElsewhere(m.digest, m.expiresAt)
        .then(() => process.send?.({ gw: 'ended-ack', digest: m.digest }));
    else if (msg?.gw === 'ended-done' && typeof msg.digest === 'string') {
      waiting.get(msg.digest)?.();
      waiting.delete(msg.digest);
    }
  });
  new AggregatorRegistry(); // installs the worker's answer to the primary's metrics requests
  AggregatorRegistry.setRegistries([registry]);
  let last: boolean | undefined;
  const tick = (): void => {
    const now = isReady();
    if (now !== last && process.connected) process.send?.({ gw: 'ready', ready: now });
    last = now;
  };
  tick();
  setInterval(tick, 200).unref();
}

/** How long a DELETE waits for the other workers to learn that its session ended. */
const endedWaitMs = 2000;

function tellEnded(w: Worker, m: { gw: 'ended'; digest: string; expiresAt: number }): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, endedWaitMs);
    function onMessage(r: unknown): void {
      const a = r as { gw?: unknown; digest?: unknown } | null;
      if (a?.gw === 'ended-ack' && a.digest === m.digest) done();
    }
    function done(): void {
      clearTimeout(timer);
      w.off('message', onMessage);
      resolve();
    }
    w.on('message', onMessage);
    w.send(m);
  });
}

function isEndedMessage(m: unknown): m is { gw: 'ended'; digest: string; expiresAt: number } {
  const e = m as { gw?: unknown; digest?: unknown; expiresAt?: unknown } | null;
  return typeof m === 'object' && e?.gw === 'ended' && typeof e.digest === 'string' && typeof e.expiresAt === 'number';
}

function isReadyMessage(m: unknown): m is { gw: 'ready'; ready: boolean } {
  return typeof m === 'object' && m !== null && (m as { gw?: unknown }).gw === 'ready';
}
