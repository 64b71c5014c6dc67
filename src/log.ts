import { createRequire } from 'node:module';
import { pino, type Logger, type LevelWithSilent } from 'pino';
import type pinoPretty from 'pino-pretty';

// pino-pretty (and its dependencies) is loaded only by a process that logs text: JSON is the default.
const requireLazily = createRequire(import.meta.url);

export type LogFormat = 'json' | 'text';

export interface LogOptions {
  /** A level or the directive form (parseLogLevels). */
  level?: LevelWithSilent | string;
  format?: LogFormat;
  name?: string;
  /** Defaults to stderr (fd 2) so stdout stays free for command output. */
  destination?: NodeJS.WritableStream;
}

/** Field names pino must never print: tokens and secrets stay out of logs. */
export const redactPaths = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'clientSecret',
  '*.clientSecret',
  'client_secret',
  '*.client_secret',
  'password',
  '*.password',
];

const levelNames: Record<string, LevelWithSilent> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  fatal: 'fatal',
  silent: 'silent',
  off: 'silent',
};

export interface LogLevels {
  /** The level of every logger no directive names. */
  level: LevelWithSilent;
  /** Levels by component (the `component` binding of a child logger: xds, mcp-auth, jwt-auth, ...). */
  components: Record<string, LevelWithSilent>;
}

/**
 * A log level, or the directive form `info,gw::xds=debug` (RUST_LOG style, which GwParameters
 * `logging.level` may carry): a bare level sets the default, `target=level` one component's level;
 * a `gw::` or `gw.` prefix on the target is dropped. Undefined when any part is not a level.
 */
export function parseLogLevels(text: string): LogLevels | undefined {
  const out: LogLevels = { level: 'info', components: {} };
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    const level = levelNames[(eq < 0 ? part : part.slice(eq + 1)).toLowerCase()];
    if (!level) return undefined;
    if (eq < 0) out.level = level;
    else out.components[part.slice(0, eq).replace(/^gw(::|\.)/, '')] = level;
  }
  return out;
}

export function createLogger(opts: LogOptions = {}): Logger {
  const text = opts.level ?? process.env.GW_LOG_LEVEL ?? 'info';
  const parsed = parseLogLevels(text) ?? { level: 'info', components: {} };
  const level = parsed.level;
  const format = opts.format ?? (process.env.GW_LOG_FORMAT as LogFormat | undefined) ?? 'json';
  const components = parsed.components;
  const base = {
    level,
    name: opts.name,
    redact: { paths: redactPaths, censor: '[redacted]' },
    // A child logger bound to a component a directive names logs at that component's level.
    ...(Object.keys(components).length > 0
      ? {
          onChild: (child: Logger) => {
            const c = (child.bindings() as { component?: unknown }).component;
            if (typeof c === 'string' && components[c]) child.level = components[c];
          },
        }
      : {}),
  };
  if (format === 'text') {
    const dest = opts.destination ?? process.stderr;
    const pretty = requireLazily('pino-pretty') as typeof pinoPretty;
    return pino(
      base,
      pretty({ destination: dest, sync: true, colorize: false, translateTime: 'SYS:standard', ignore: 'pid,hostname' }),
    );
  }
  return pino(base, opts.destination ?? pino.destination({ dest: 2, sync: false }));
}
