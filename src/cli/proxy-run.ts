// `gw proxy` in a process that serves traffic (a worker, or the single process): the standalone file or
// xDS mode, and --validate-only. Loaded by cli/proxy.ts only there, so the `--workers` primary never
// imports the proxy runtime.
import cluster from 'node:cluster';
import { createLogger } from '../log.js';
import { ProblemError, formatProblem } from '../problem.js';
import type { startStandalone as StartStandalone } from '../proxy/standalone.js';
import { checkRouteSecurity, createRouteSecurity } from '../proxy/auth/route-security.js';
import { version } from './version.js';
import { resolveXdsOptions, runXdsProxy, untilSignal } from './proxy-xds.js';
import { refusalLines } from '../config/refusals.js';
import { identityFromEnv } from '../proxy/identity/from-env.js';
import { reportToPrimary } from './proxy-workers.js';
import type { ProxySettings } from './proxy-settings.js';

export async function runXdsMode({
  values,
  format,
  limits,
  sessionKeys,
  ops,
  catalogFiles,
}: ProxySettings): Promise<number> {
  const log = createLogger({ name: 'proxy', level: values['log-level'], format });
  let identity: Awaited<ReturnType<typeof identityFromEnv>>;
  try {
    const xds = resolveXdsOptions(values, process.env);
    identity = await identityFromEnv(process.env, log);
    return await runXdsProxy(
      {
        ...xds,
        log,
        // Flags and environment win over the bootstrap file's shutdown delays.
        limits: { ...xds.limits, ...limits },
        sessionKeys,
        security: createRouteSecurity(),
        ...ops,
        serverInfo: { name: 'gw', title: 'Gw MCP gateway', version: version() },
        ...(catalogFiles ? { modelCatalogFiles: catalogFiles } : {}),
        // Workers share the admin port like the listeners; each answers with its own session count.
        ...(xds.admin && cluster.worker ? { admin: { ...xds.admin, worker: cluster.worker.id } } : {}),
        ...(identity ? { identity } : {}),
      },
      log,
      (proxy) => {
        if (cluster.isWorker)
          reportToPrimary(
            () => proxy.client.ready && proxy.runtime.ready,
            proxy.runtime.metrics.registry,
            proxy.runtime.sessions,
          );
      },
    );
  } catch (err) {
    // A start that failed leaves no open Workload API stream or renewal timer keeping the process alive.
    identity?.close();
    return reportFailure(err);
  }
}

export async function validateOnly(file: string): Promise<number> {
  try {
    // The file's schema, validator and YAML parser are loaded only by the modes that read a file.
    const { loadConfigFile } = await import('../config/load.js');
    const { snapshot, refusals } = await loadConfigFile(file);
    checkRouteSecurity(snapshot, createLogger({ level: 'silent' }));
    for (const line of refusalLines(refusals, file)) console.error(line);
    console.log(`${file}: valid`);
    return 0;
  } catch (err) {
    return reportFailure(err);
  }
}

export async function runStandaloneMode({
  values,
  format,
  limits,
  sessionKeys,
  ops,
  catalogFiles,
}: ProxySettings): Promise<number> {
  const file = values.file ?? '';
  const log = createLogger({ name: 'proxy', level: values['log-level'], format });
  let standalone: Awaited<ReturnType<typeof StartStandalone>>;
  try {
    const { startStandalone } = await import('../proxy/standalone.js');
    standalone = await startStandalone({
      file,
      log,
      limits,
      sessionKeys,
      security: createRouteSecurity(),
      watch: !values['no-watch'],
      ...ops,
      ...(catalogFiles ? { modelCatalogFiles: catalogFiles } : {}),
      serverInfo: { name: 'gw', title: 'Gw MCP gateway', version: version() },
    });
  } catch (err) {
    return reportFailure(err);
  }
  if (cluster.isWorker)
    reportToPrimary(() => standalone.runtime.ready, standalone.runtime.metrics.registry, standalone.runtime.sessions);
  log.info(
    {
      file,
      ports: standalone.runtime.boundPorts(),
      ready: standalone.ops.readyPort,
      metrics: standalone.ops.metricsPort,
    },
    'proxy started',
  );
  return untilSignal(standalone, log);
}

function reportFailure(err: unknown): number {
  if (err instanceof ProblemError) {
    for (const p of err.problems) console.error(formatProblem(p));
  } else {
    console.error(`gw proxy: ${err instanceof Error ? err.message : String(err)}`);
  }
  return 1;
}
