// `gw proxy -f config.yaml [--validate-only]`: the standalone MCP gateway.
import cluster from 'node:cluster';
import { accessSync, constants } from 'node:fs';
import { parseArgs } from 'node:util';
import { createLogger, parseLogLevels, type LogFormat } from '../log.js';
import { loadConfigFile } from '../config/load.js';
import { ProblemError, formatProblem } from '../problem.js';
import { parseAddress } from '../proxy/ops.js';
import { startStandalone } from '../proxy/standalone.js';
import { checkRouteSecurity, createRouteSecurity } from '../proxy/auth/route-security.js';
import { version } from './version.js';
import {
  adminFlags,
  adminHelp,
  resolveXdsOptions,
  runXdsProxy,
  untilSignal,
  wantsXds,
  xdsFlags,
  xdsHelp,
} from './proxy-xds.js';
import { limitFlags, limitsHelp, resolveLimits } from './proxy-limits.js';
import { refusalLines } from '../config/refusals.js';
import { sessionKeysFrom, type SessionKeys } from '../proxy/mcp/session-keys.js';
import { identityFromEnv } from '../proxy/identity/from-env.js';
import { reportToPrimary, resolveWorkers, runPrimary, workersFlag, workersHelp } from './proxy-workers.js';

const help = `Usage: gw proxy -f <config.yaml> [options]
       gw proxy --xds-address <host:port> --gateway <ns/name> [options]

Options:
  -f, --file <path>          Standalone mode: the configuration file (xDS mode takes none)
      --validate-only        Check the file, print problems, and exit (0 = valid)
      --ready-address <a>    Readiness endpoint address (default 0.0.0.0:15021)
      --metrics-address <a>  Prometheus metrics address (default 0.0.0.0:15020)
      --log-level <level>    trace | debug | info | warn | error | silent, or info,gw::xds=debug (default info)
      --log-format <fmt>     json | text (default json)
      --no-watch             Do not reload when the file changes
      --model-catalog <f>    A model catalog file, repeatable (env GW_MODEL_CATALOG, comma-separated);
                             reloaded on change (docs/llm-providers.md "Model catalog")
${workersHelp}
  -h, --help                 Show this help

Limits (a flag, else its environment variable; docs/proxy.md "Limits"):
${limitsHelp}

${xdsHelp}
${adminHelp}`;

const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

export async function run(argv: string[]): Promise<number> {
  const code = await runProxy(argv);
  // A worker's channel to the primary keeps it alive: let go once the proxy has closed.
  if (cluster.isWorker) cluster.worker?.disconnect();
  return code;
}

const flagOptions = {
  file: { type: 'string', short: 'f' },
  'validate-only': { type: 'boolean' },
  'ready-address': { type: 'string', default: '0.0.0.0:15021' },
  'metrics-address': { type: 'string', default: '0.0.0.0:15020' },
  'log-level': { type: 'string', default: process.env.GW_LOG_LEVEL ?? 'info' },
  'log-format': { type: 'string', default: process.env.GW_LOG_FORMAT ?? 'json' },
  'no-watch': { type: 'boolean' },
  'model-catalog': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  ...xdsFlags,
  ...adminFlags,
  ...limitFlags,
  ...workersFlag,
} as const;

type ProxyFlags = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: false; options: typeof flagOptions }>
>['values'];

/** What every mode needs once the flags check out. */
interface ProxySettings {
  values: ProxyFlags;
  format: LogFormat;
  limits: ReturnType<typeof resolveLimits>;
  workers: number;
  sessionKeys: SessionKeys;
  xdsMode: boolean;
  /** `--model-catalog` files, else GW_MODEL_CATALOG's; unset: none (xDS mode: the bootstrap file's). */
  catalogFiles: string[] | undefined;
  /** This process's ops endpoints (a worker's are private: the primary answers for all workers). */
  ops: { readyAddress: string; metricsAddress: string };
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
  if (values['validate-only']) return validateOnly(values.file ?? '');
  if (sessionKeys.generated && !cluster.isWorker)
    createLogger({ name: 'proxy', level: values['log-level'], format }).warn(
      'SESSION_KEY is not set: MCP session ids are sealed with a random key of this process, so they do not resume on other replicas',
    );
  if (settings.xdsMode) return runXdsMode(settings);
  return runStandaloneMode(settings);
}

/** Flags, environment and their usage errors (exit 2), all found before any worker is forked. */
function resolveSettings(argv: string[]): ProxySettings | number {
  let values: ProxyFlags;
  try {
    ({ values } = parseArgs({ args: argv, allowPositionals: false, options: flagOptions }));
  } catch (err) {
    console.error(`gw proxy: ${(err as Error).message}\n\n${help}`);
    return 2;
  }
  if (values.help) {
    console.log(help);
    return 0;
  }
  const usage = usageError(values);
  if (usage) {
    console.error(`gw proxy: ${usage}`);
    return 2;
  }
  try {
    return {
      values,
      format: values['log-format'] as LogFormat,
      limits: resolveLimits(values, process.env),
      workers: resolveWorkers(values.workers, process.env),
      sessionKeys: sessionKeysFrom(process.env),
      xdsMode: wantsXds(values, process.env, values.file !== undefined),
      catalogFiles: catalogFilesOf(values['model-catalog'], process.env.GW_MODEL_CATALOG),
      ops: cluster.isWorker
        ? { readyAddress: '127.0.0.1:0', metricsAddress: '127.0.0.1:0' }
        : { readyAddress: values['ready-address'], metricsAddress: values['metrics-address'] },
    };
  } catch (err) {
    console.error(`gw proxy: ${(err as Error).message}`);
    return 2;
  }
}

/**
 * Problems found before anything starts, so the primary and a single process fail alike with one line:
 * an address that is not host:port, an xDS setting that is missing or a file (--xds-ca, --xds-token-file)
 * that cannot be read. A file that goes away later is retried by the xDS client.
 */
function startupProblem({ values, xdsMode }: ProxySettings): string | undefined {
  for (const flag of ['ready-address', 'metrics-address'] as const)
    if (!parseAddress(values[flag])) return `--${flag} ${values[flag]}: must look like host:port`;
  if (!xdsMode) return undefined;
  let xds: ReturnType<typeof resolveXdsOptions>;
  try {
    xds = resolveXdsOptions(values, process.env);
  } catch (err) {
    return (err as Error).message;
  }
  const files = [
    ['--xds-ca', xds.caFile],
    ['--xds-token-file', xds.tokenFile],
  ] as const;
  for (const [flag, file] of files) {
    if (file === undefined) continue;
    try {
      accessSync(file, constants.R_OK);
    } catch (err) {
      return `${flag} ${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
    }
  }
  return undefined;
}

/** The first usage mistake in the flags, if any. */
function usageError(values: ProxyFlags): string | undefined {
  if (!parseLogLevels(values['log-level']))
    return `--log-level ${JSON.stringify(values['log-level'])}: must be one of ${levels.join(', ')}, or directives such as info,gw::xds=debug`;
  if (values['log-format'] !== 'json' && values['log-format'] !== 'text') return '--log-format must be json or text';
  const xdsMode = wantsXds(values, process.env, values.file !== undefined);
  if (xdsMode && (values.file || values['validate-only']))
    return `-f/--validate-only and xDS mode (--xds-address, --gateway, ...) are mutually exclusive\n\n${help}`;
  if (!xdsMode && !values.file) return `--file is required\n\n${help}`;
  return undefined;
}

/** The catalog files a flag or the environment names; undefined when neither does. */
function catalogFilesOf(flag: string[] | undefined, env: string | undefined): string[] | undefined {
  const files = flag ?? env?.split(',').map((f) => f.trim());
  const named = files?.filter((f) => f !== '');
  return named && named.length > 0 ? named : undefined;
}

async function runXdsMode({ values, format, limits, sessionKeys, ops, catalogFiles }: ProxySettings): Promise<number> {
  const log = createLogger({ name: 'proxy', level: values['log-level'], format });
  let identity: ReturnType<typeof identityFromEnv>;
  try {
    const xds = resolveXdsOptions(values, process.env);
    identity = identityFromEnv(process.env, log);
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

async function validateOnly(file: string): Promise<number> {
  try {
    const { snapshot, refusals } = await loadConfigFile(file);
    checkRouteSecurity(snapshot, createLogger({ level: 'silent' }));
    for (const line of refusalLines(refusals, file)) console.error(line);
    console.log(`${file}: valid`);
    return 0;
  } catch (err) {
    return reportFailure(err);
  }
}

async function runStandaloneMode({
  values,
  format,
  limits,
  sessionKeys,
  ops,
  catalogFiles,
}: ProxySettings): Promise<number> {
  const file = values.file ?? '';
  const log = createLogger({ name: 'proxy', level: values['log-level'], format });
  let standalone;
  try {
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
