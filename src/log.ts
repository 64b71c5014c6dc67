import { pino, type Logger, type LevelWithSilent } from 'pino';
import pretty from 'pino-pretty';

export type LogFormat = 'json' | 'text';

export interface LogOptions {
  level?: LevelWithSilent;
  format?: LogFormat;
  name?: string;
  /** Defaults to stderr (fd 2) so stdout stays free for command output. */
  destination?: NodeJS.WritableStream;
}

/** Field names pino must never print: tokens and secrets stay out of logs. */
export const redactPaths = [
  'token', '*.token', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'clientSecret', '*.clientSecret', 'client_secret', '*.client_secret', 'password', '*.password',
];

export function createLogger(opts: LogOptions = {}): Logger {
  const level = opts.level ?? ((process.env.GW_LOG_LEVEL as LevelWithSilent | undefined) ?? 'info');
  const format = opts.format ?? ((process.env.GW_LOG_FORMAT as LogFormat | undefined) ?? 'json');
  const base = { level, name: opts.name, redact: { paths: redactPaths, censor: '[redacted]' } };
  if (format === 'text') {
    const dest = opts.destination ?? process.stderr;
    return pino(base, pretty({ destination: dest, sync: true, colorize: false, translateTime: 'SYS:standard', ignore: 'pid,hostname' }));
  }
  return pino(base, opts.destination ?? pino.destination({ dest: 2, sync: false }));
}
