// Starts and stops test/cluster's gw-cluster binary (embedded etcd + kube-apiserver on loopback).
import { spawn, execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from './paths.js';

export const clusterDir = join(repoRoot, 'test', 'cluster');
export const clusterBinary = join(clusterDir, 'bin', 'gw-cluster');

export interface ClusterOptions {
  /** Where the admin kubeconfig is written. */
  kubeconfig: string;
  /** kube-apiserver and etcd logs go here (the binary's stderr). */
  logFile: string;
  /** IP the API server listens on and advertises; default 127.0.0.1 (a real node's pods need a bridge address). */
  address?: string;
  /** Fixed API server port; 0 (default) picks a free one. Restarts need a fixed port to keep the kubeconfig valid. */
  port?: number;
  /** Kept across restarts (certificates and etcd data); default: a temporary directory removed on stop. */
  dataDir?: string;
  /** Extra kube-apiserver flags. */
  apiserverArgs?: string[];
  readyTimeoutMs?: number;
}

export interface Cluster {
  server: string;
  kubeconfig: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Fails with a message that says what to do when Go or the binary is missing (CI never skips e2e). */
export function assertClusterBinary(): void {
  if (existsSync(clusterBinary)) return;
  let goHint = 'run `make cluster`';
  try {
    execFileSync('go', ['version'], { stdio: 'pipe' });
  } catch {
    goHint = 'Go (>= 1.25) is not installed: install it from https://go.dev/dl/, then run `make cluster`';
  }
  throw new Error(`e2e: the API server binary ${clusterBinary} is missing; ${goHint}`);
}

/** An exit before ready is retried once (loudly): on a loaded machine a port can be taken between probe and bind. */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  assertClusterBinary();
  try {
    return await startClusterOnce(opts);
  } catch (err) {
    if (!(err instanceof ExitedBeforeReady)) throw err;
    console.warn(`${err.message}\ne2e: starting the API server once more`);
    return startClusterOnce(opts);
  }
}

class ExitedBeforeReady extends Error {}

async function startClusterOnce(opts: ClusterOptions): Promise<Cluster> {
  mkdirSync(join(opts.logFile, '..'), { recursive: true });
  const args = ['--kubeconfig', opts.kubeconfig, '--port', String(opts.port ?? 0), '--stop-on-stdin-eof'];
  if (opts.address) args.push('--address', opts.address);
  if (opts.dataDir) args.push('--data-dir', opts.dataDir);
  if (opts.apiserverArgs?.length) args.push('--', ...opts.apiserverArgs);
  // stdin stays an open pipe: if this process dies, EOF tells the server to shut down.
  const child = spawn(clusterBinary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  child.stderr.pipe(log);
  // The log's tail, kept here too: on CI the file is gone afterwards, so a failure must carry the cause.
  let tail = '';
  child.stderr.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-3000);
  });
  // 'close' (not 'exit'): by then stderr has been read to its end.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

  const ready = await waitForReadyLine(child, exited, opts.readyTimeoutMs ?? 180_000, opts.logFile, () => tail);
  return {
    server: ready.server,
    kubeconfig: opts.kubeconfig,
    async stop(graceMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      log.end();
    },
  };
}

async function waitForReadyLine(
  child: ChildProcess,
  exited: Promise<number | null>,
  timeoutMs: number,
  logFile: string,
  stderrTail: () => string,
): Promise<{ server: string }> {
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<{ server: string }>((resolve) => {
    lines.on('line', (line) => {
      try {
        const msg = JSON.parse(line) as { event?: string; server?: string };
        if (msg.event === 'ready' && msg.server) resolve({ server: msg.server });
      } catch {
        // Not ours: the binary prints only JSON on stdout, but a library might not.
      }
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`e2e: API server not ready within ${timeoutMs} ms; see ${logFile}`));
    }, timeoutMs);
  });
  const died = exited.then((code) => {
    throw new ExitedBeforeReady(
      `e2e: API server exited with code ${code} before it was ready; see ${logFile}; its last output:\n${stderrTail().trimEnd()}`,
    );
  });
  // Once ready, a later exit (a normal stop) must not surface as an unhandled rejection.
  died.catch(() => undefined);
  try {
    return await Promise.race([ready, timeout, died]);
  } finally {
    clearTimeout(timer);
  }
}
