// `gw proxy` flags (and GW_* environment variables) for the proxy's session, connection and time
// limits; one table so the help text, the parser and docs/proxy.md "Limits" name the same things.
import type { ProxyLimits } from '../proxy/limits.js';

interface LimitFlag {
  key: keyof ProxyLimits;
  env: string;
  kind: 'count' | 'duration';
  help: string;
}

const table: Record<string, LimitFlag> = {
  'max-sessions': {
    key: 'maxSessions',
    env: 'GW_MAX_SESSIONS',
    kind: 'count',
    help: 'Open MCP sessions per proxy (default 4000)',
  },
  'max-sessions-per-client': {
    key: 'maxSessionsPerClient',
    env: 'GW_MAX_SESSIONS_PER_CLIENT',
    kind: 'count',
    help: 'Open MCP sessions per client (default 100)',
  },
  'session-idle-timeout': {
    key: 'sessionIdleMs',
    env: 'GW_SESSION_IDLE_TIMEOUT',
    kind: 'duration',
    help: 'Close idle MCP sessions after (default 30m)',
  },
  'session-max-age': {
    key: 'sessionMaxAgeMs',
    env: 'GW_SESSION_MAX_AGE',
    kind: 'duration',
    help: 'A sealed MCP session id stops opening after (default 24h)',
  },
  'header-timeout': {
    key: 'headersTimeoutMs',
    env: 'GW_HEADER_TIMEOUT',
    kind: 'duration',
    help: 'Time to send request headers (default 10s)',
  },
  'request-timeout': {
    key: 'requestTimeoutMs',
    env: 'GW_REQUEST_TIMEOUT',
    kind: 'duration',
    help: 'Time to send a whole request (default 60s; 0 = none)',
  },
  'keepalive-timeout': {
    key: 'keepAliveTimeoutMs',
    env: 'GW_KEEPALIVE_TIMEOUT',
    kind: 'duration',
    help: 'Close idle keep-alive connections after (default 65s)',
  },
  'max-connections-per-source': {
    key: 'maxConnectionsPerSource',
    env: 'GW_MAX_CONNECTIONS_PER_SOURCE',
    kind: 'count',
    help: 'Connections per source address and listener (default 1024; 0 = no cap)',
  },
  'mcp-input-timeout': {
    key: 'mcpInputTimeoutMs',
    env: 'GW_MCP_INPUT_TIMEOUT',
    kind: 'duration',
    help: "Time a 2026 client has to answer a 2025 target's questions (default 2m)",
  },
  'target-queue': {
    key: 'targetQueue',
    env: 'GW_TARGET_QUEUE',
    kind: 'count',
    help: 'Requests waiting for a connection to one MCP target (default 1024; beyond: 503)',
  },
  'shutdown-min-delay': {
    key: 'drainMinMs',
    env: 'GW_SHUTDOWN_MIN_DELAY',
    kind: 'duration',
    help: 'On SIGTERM, keep serving (unready) for (default 0; xDS mode 5s)',
  },
  'shutdown-max-delay': {
    key: 'drainMaxMs',
    env: 'GW_SHUTDOWN_MAX_DELAY',
    kind: 'duration',
    help: 'On SIGTERM, cut what is still open after (default 20s)',
  },
};

export const limitFlags = Object.fromEntries(Object.keys(table).map((k) => [k, { type: 'string' as const }])) as Record<
  keyof typeof table,
  { type: 'string' }
>;

export const limitsHelp = Object.entries(table)
  .map(([flag, f]) => `      --${flag.padEnd(28)} ${f.help} [${f.env}]`)
  .join('\n');

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The limits the flags and environment set; throws naming the flag (or variable) and the value on bad input. */
export function resolveLimits(values: Record<string, unknown>, env: NodeJS.ProcessEnv): Partial<ProxyLimits> {
  const out: Partial<ProxyLimits> = {};
  for (const [flag, f] of Object.entries(table)) {
    const fromFlag = values[flag];
    const raw = typeof fromFlag === 'string' ? fromFlag : env[f.env];
    if (raw === undefined || raw === '') continue;
    const where = typeof fromFlag === 'string' ? `--${flag}` : f.env;
    const value = f.kind === 'count' ? count(raw) : duration(raw);
    if (value === undefined)
      throw new Error(
        `${where}: ${JSON.stringify(raw)} is not ${f.kind === 'count' ? 'a whole number ≥ 0' : 'a duration such as 500ms, 10s, 5m or 1h'}`,
      );
    if (
      value === 0 &&
      (f.key === 'maxSessions' ||
        f.key === 'maxSessionsPerClient' ||
        f.key === 'headersTimeoutMs' ||
        f.key === 'mcpInputTimeoutMs' ||
        f.key === 'sessionIdleMs')
    ) {
      throw new Error(`${where}: must be above 0`);
    }
    out[f.key] = value;
  }
  return out;
}

/**
 * The `limits` object of the bootstrap file (GwParameters `rawConfig.limits`): each key is the camelCase
 * name of a flag (`maxSessions` for `--max-sessions`), checked like the flag; throws naming the file and key.
 */
export function limitsFromConfig(limits: unknown, file: string): Partial<ProxyLimits> {
  if (limits === undefined) return {};
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits))
    throw new Error(`--config ${file}: limits must be an object`);
  const values: Record<string, string> = {};
  for (const [key, v] of Object.entries(limits)) {
    const flag = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    if (!(flag in table) || flag.startsWith('shutdown-'))
      throw new Error(`--config ${file}: limits.${key} is not a proxy limit (see docs/deployer.md "rawConfig")`);
    if (typeof v !== 'number' && typeof v !== 'string')
      throw new Error(`--config ${file}: limits.${key} must be a number or a duration`);
    values[flag] = String(v);
  }
  try {
    return resolveLimits(values, {});
  } catch (err) {
    const message = (err as Error).message.replace(
      /^--([a-z-]+)/,
      (_m, f: string) => `limits.${f.replace(/-([a-z])/g, (_n, c: string) => c.toUpperCase())}`,
    );
    throw new Error(`--config ${file}: ${message}`);
  }
}

function count(raw: string): number | undefined {
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

function duration(raw: string): number | undefined {
  if (raw === '0') return 0;
  const m = /^(\d+)(ms|s|m|h)$/.exec(raw);
  return m ? Number(m[1]) * (units[m[2] as string] as number) : undefined;
}
