// Standalone mode: config file → IR → runtime, plus ops endpoints and reload on file change.
// Nothing binds before the file has loaded cleanly.
import type { SessionKeys } from './mcp/session-keys.js';
import type { FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import { loadConfigFile } from '../config/load.js';
import { ProblemError } from '../problem.js';
import type { RouteSecurityFactory } from './auth/hooks.js';
import { startOps, type OpsServers } from './ops.js';
import { ProxyRuntime } from './runtime.js';
import { watchFile } from './watch.js';
import type { ProxyLimits } from './limits.js';

export interface StandaloneOptions {
  file: string;
  log: Logger;
  readyAddress: string;
  metricsAddress: string;
  watch: boolean;
  env?: Record<string, string | undefined>;
  security?: RouteSecurityFactory;
  sessionIdleMs?: number;
  /** Session, connection and time limits (src/proxy/limits.ts); unset ones take the defaults. */
  limits?: Partial<ProxyLimits>;
  serverInfo?: { name: string; title: string; version: string };
  /** Keys sealing MCP session ids (SESSION_KEY); unset: a random key of this process. */
  sessionKeys?: SessionKeys;
  /** Model catalog files (`--model-catalog`; GwParameters `modelCatalog` in a cluster): see RuntimeOptions. */
  modelCatalogFiles?: readonly string[];
}

export interface Standalone {
  runtime: ProxyRuntime;
  ops: OpsServers;
  /** Resolves after the reload triggered by the latest change has been applied or rejected. */
  reload(): Promise<boolean>;
  close(): Promise<void>;
}

export async function startStandalone(opts: StandaloneOptions): Promise<Standalone> {
  const { file, log } = opts;
  const env = opts.env ?? process.env;
  const first = await loadConfigFile(file, env);
  const runtime = new ProxyRuntime({
    log,
    ...(opts.security ? { security: opts.security } : {}),
    ...(opts.sessionIdleMs ? { sessionIdleMs: opts.sessionIdleMs } : {}),
    ...(opts.serverInfo ? { serverInfo: opts.serverInfo } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.sessionKeys ? { sessionKeys: opts.sessionKeys } : {}),
    ...(opts.modelCatalogFiles ? { modelCatalogFiles: opts.modelCatalogFiles } : {}),
  });
  await runtime.apply(first.snapshot, file);
  runtime.metrics.reloads.inc({ result: 'applied' });
  let ops: OpsServers;
  try {
    ops = await startOps({
      readyAddress: opts.readyAddress,
      metricsAddress: opts.metricsAddress,
      isReady: () => runtime.ready,
      registry: runtime.metrics.registry,
    });
  } catch (err) {
    await runtime.close();
    throw err;
  }
  let version = first.snapshot.version;
  let chain: Promise<boolean> = Promise.resolve(true);
  const reload = (): Promise<boolean> => {
    chain = chain.then(async () => {
      try {
        const next = await loadConfigFile(file, env);
        if (next.snapshot.version === version) return true;
        await runtime.apply(next.snapshot, file);
        version = next.snapshot.version;
        runtime.metrics.reloads.inc({ result: 'applied' });
        log.info({ file, version }, 'configuration reloaded');
        return true;
      } catch (err) {
        runtime.metrics.reloads.inc({ result: 'rejected' });
        const problems =
          err instanceof ProblemError ? err.problems : [{ source: file, path: '', message: String(err) }];
        for (const p of problems)
          log.error(
            { file, path: p.path, object: p.object },
            `configuration rejected, keeping the last good one: ${p.message}`,
          );
        return false;
      }
    });
    return chain;
  };
  const watcher: FSWatcher | undefined = opts.watch ? watchFile(file, () => void reload()) : undefined;
  return {
    runtime,
    ops,
    reload,
    close: async () => {
      watcher?.close();
      await ops.close();
      await runtime.close();
    },
  };
}
