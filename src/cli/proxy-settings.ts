// `gw proxy`'s flags and environment, resolved and checked before any worker is forked: what the
// `--workers` primary needs (it serves no traffic, so nothing here loads the proxy runtime).
import cluster from 'node:cluster';
import { accessSync, constants } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseLogLevels, type LogFormat } from '../log.js';
import { parseAddress } from '../proxy/ops.js';
import { adminFlags, adminHelp, resolveXdsOptions, wantsXds, xdsFlags, xdsHelp } from './proxy-xds.js';
import { limitFlags, limitsHelp, resolveLimits } from './proxy-limits.js';
import { sessionKeysFrom, type SessionKeys } from '../proxy/mcp/session-keys.js';
import { resolveWorkers, workersFlag, workersHelp } from './proxy-workers.js';

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

export type ProxyFlags = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: false; options: typeof flagOptions }>
>['values'];

/** What every mode needs once the flags check out. */
export interface ProxySettings {
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

/** Flags, environment and their usage errors (exit 2), all found before any worker is forked. */
export function resolveSettings(argv: string[]): ProxySettings | number {
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
export function startupProblem({ values, xdsMode }: ProxySettings): string | undefined {
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
