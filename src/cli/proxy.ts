// `gw proxy -f config.yaml [--validate-only]`: the standalone MCP gateway, or the proxy of a Gateway over xDS.
// Only flags and supervision are imported here: the `--workers` primary serves no traffic, so the proxy
// runtime (proxy-run.ts) is loaded only by a process that serves (a worker, or the single process).
import cluster from 'node:cluster';
import { createLogger } from '../log.js';
import { runPrimary } from './proxy-workers.js';
import { resolveSettings, startupProblem } from './proxy-settings.js';

export async function run(argv: string[]): Promise<number> {
  const code = await runProxy(argv);
  // A worker's channel to the primary keeps it alive: let go once the proxy has closed.
  if (cluster.isWorker) cluster.worker?.disconnect();
  return code;
}

async function runProxy(argv: string[]): Promise<number> {
  const settings = resolveSettings(argv);
  if (typeof settings === 'number') return settings;
  const { values, format, workers, sessionKeys } = settings;
  const startup = values['validate-only'] || cluster.isWorker ? undefined : startupProblem(settings);
  if (startup) {
    console.error(`gw proxy: ${startup}`);
    return 1;
  }
  if (workers > 1 && cluster.isPrimary && !values['validate-only']) {
    return runPrimary({
      workers,
      readyAddress: values['ready-address'],
      metricsAddress: values['metrics-address'],
      log: createLogger({ name: 'proxy', level: values['log-level'], format }),
      env: process.env,
    });
  }
  const { runXdsMode, runStandaloneMode, validateOnly } = await import('./proxy-run.js');
  if (values['validate-only']) return validateOnly(values.file ?? '');
  if (sessionKeys.generated && !cluster.isWorker)
    createLogger({ name: 'proxy', level: values['log-level'], format }).warn(
      'SESSION_KEY is not set: MCP session ids are sealed with a random key of this process, so they do not resume on other replicas',
    );
  if (settings.xdsMode) return runXdsMode(settings);
  return runStandaloneMode(settings);
}
