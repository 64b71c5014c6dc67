// `gw proxy` in xDS mode: settings from flags, then the environment the deployer renders, then the
// bootstrap file the deployer mounts (`--config /etc/gw/config.json`); the first that sets a value wins.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { parseAddress } from '../proxy/ops.js';
import type { XdsProxy, XdsProxyOptions } from '../proxy/xds-config.js';
import type { ProxyLimits } from '../proxy/limits.js';
import { parseDurationMs } from '../ir/duration.js';
import { limitsFromConfig } from './proxy-limits.js';

export const xdsFlags = {
  'xds-address': { type: 'string' },
  gateway: { type: 'string' },
  'pod-name': { type: 'string' },
  'xds-token-file': { type: 'string' },
  'xds-ca': { type: 'string' },
  'xds-server-name': { type: 'string' },
  config: { type: 'string' },
  'listen-address': { type: 'string' },
} as const;

export const xdsHelp = `xDS mode (instead of -f): configuration from the controller
      --xds-address <h:p>    Controller xDS address (env GW_XDS_ADDRESS)
      --gateway <ns/name>    Gateway whose configuration to serve (env GW_GATEWAY)
      --pod-name <name>      Identity reported to the controller (env POD_NAME, else the hostname)
      --xds-token-file <f>   Bearer token file, re-read on every connect (env GW_XDS_TOKEN_FILE)
      --xds-ca <f>           CA bundle; turns TLS on (env GW_XDS_CA_FILE)
      --xds-server-name <n>  Name the controller's certificate must carry (env GW_XDS_SERVER_NAME)
      --config <f>           Bootstrap JSON the deployer mounts (env GW_CONFIG): gateway, xds.*
      --listen-address <ip>  Address for gateway listeners the IR leaves open (env GW_LISTEN_ADDRESS; default all)`;

/** The web UI (docs/ui.md): xDS mode only; with --workers every worker answers on the shared admin port. */
export const adminFlags = {
  'admin-address': { type: 'string' },
  'admin-token-file': { type: 'string' },
} as const;

export const adminHelp = `      --admin-address <a>    Web UI and its API (env GW_ADMIN_ADDRESS; default 127.0.0.1:15000; off: none)
      --admin-token-file <f> Bearer token the UI's API asks for; required off loopback (env GW_ADMIN_TOKEN_FILE)`;

export const DEFAULT_ADMIN_ADDRESS = '127.0.0.1:15000';

/** The admin settings from flags, environment, then the bootstrap file's `admin` (GwParameters `admin`). */
function adminOf(
  values: { 'admin-address'?: string | undefined; 'admin-token-file'?: string | undefined },
  env: NodeJS.ProcessEnv,
  boot: Bootstrap,
): { admin?: { address: string; tokenFile?: string; optional?: boolean } } {
  const address = values['admin-address'] ?? env.GW_ADMIN_ADDRESS ?? boot.admin?.address;
  const tokenFile = values['admin-token-file'] ?? env.GW_ADMIN_TOKEN_FILE ?? boot.admin?.tokenFile;
  const token = tokenFile ? { tokenFile } : {};
  // A token on the default address is applied (GwParameters ui.tokenSecret alone): it asks for the UI, so a
  // failure to start it stops the start. Nobody asked for the default otherwise: a port taken by another proxy
  // on this host costs the UI, not the start.
  if (address === undefined)
    return { admin: { address: DEFAULT_ADMIN_ADDRESS, ...(tokenFile ? token : { optional: true }) } };
  if (address === 'off') return {};
  if (!parseAddress(address))
    throw new Error(`--admin-address must look like host:port or be off, got ${JSON.stringify(address)}`);
  return { admin: { address, ...token } };
}

export type XdsFlagValues = { [K in keyof typeof xdsFlags]?: string | undefined };

interface Bootstrap {
  gateway?: string;
  xds?: { address?: string; tls?: boolean; tokenFile?: string; caFile?: string };
  /** GwParameters `shutdown`, written by the deployer (Gateway API Durations). */
  shutdown?: { minDelay?: string; maxDelay?: string };
  /** GwParameters `rawConfig.limits`: flag values by camelCase flag name; flags and environment win. */
  limits?: unknown;
  /** GwParameters `modelCatalog`: the files the deployer mounts (--model-catalog and GW_MODEL_CATALOG win). */
  modelCatalog?: { files?: unknown };
  /** GwParameters `admin`: the web UI's address and the mounted token Secret's file. */
  admin?: { address?: string; tokenFile?: string; metricsPort?: number; readinessPort?: number };
}

/**
 * In a cluster the endpoints of a terminating pod are removed a few seconds after SIGTERM: without a
 * configured minDelay the proxy keeps serving this long, so rolling updates drop nothing.
 */
export const XDS_DEFAULT_DRAIN_MIN_MS = 5_000;

/** The drain delays of the bootstrap file (GwParameters `shutdown`), or the xDS-mode default. */
function drainOf(boot: Bootstrap, configFile: string | undefined): Partial<ProxyLimits> {
  const at = (field: 'minDelay' | 'maxDelay'): number | undefined => {
    const raw = boot.shutdown?.[field];
    if (raw === undefined) return undefined;
    const ms = typeof raw === 'string' ? parseDurationMs(raw) : undefined;
    if (ms === undefined)
      throw new Error(`--config ${configFile}: shutdown.${field}: ${JSON.stringify(raw)} is not a duration`);
    return ms;
  };
  const max = at('maxDelay');
  return { drainMinMs: at('minDelay') ?? XDS_DEFAULT_DRAIN_MIN_MS, ...(max !== undefined ? { drainMaxMs: max } : {}) };
}

/** True when xDS mode was asked for by a flag or (without -f) by the environment. */
export function wantsXds(values: XdsFlagValues, env: NodeJS.ProcessEnv, hasFile: boolean): boolean {
  const flagged = Object.keys(xdsFlags).some((k) => values[k as keyof XdsFlagValues] !== undefined);
  return flagged || (!hasFile && (env.GW_XDS_ADDRESS !== undefined || env.GW_CONFIG !== undefined));
}

type Resolved = Omit<XdsProxyOptions, 'log' | 'security' | 'serverInfo' | 'readyAddress' | 'metricsAddress'>;

/** Resolves the xDS settings; throws an Error with a one-line message naming the flag. */
export function resolveXdsOptions(
  values: XdsFlagValues & { [K in keyof typeof adminFlags]?: string | undefined },
  env: NodeJS.ProcessEnv,
): Resolved {
  const configFile = values.config ?? env.GW_CONFIG;
  let boot: Bootstrap = {};
  if (configFile) {
    try {
      boot = JSON.parse(readFileSync(configFile, 'utf8')) as Bootstrap;
    } catch (err) {
      throw new Error(`--config ${configFile}: cannot be read as JSON: ${(err as Error).message}`);
    }
  }
  const address = values['xds-address'] ?? env.GW_XDS_ADDRESS ?? boot.xds?.address;
  const gateway = values.gateway ?? env.GW_GATEWAY ?? boot.gateway;
  if (!address) throw new Error('--xds-address is required in xDS mode (or GW_XDS_ADDRESS)');
  if (!parseAddress(address)) throw new Error(`--xds-address must look like host:port, got ${JSON.stringify(address)}`);
  if (!gateway || !/^[^/\s]+\/[^/\s]+$/.test(gateway))
    throw new Error(`--gateway must be namespace/name, got ${JSON.stringify(gateway ?? '')}`);
  const tokenFile = values['xds-token-file'] ?? env.GW_XDS_TOKEN_FILE ?? boot.xds?.tokenFile;
  const caFile = values['xds-ca'] ?? env.GW_XDS_CA_FILE ?? (boot.xds?.tls === false ? undefined : boot.xds?.caFile);
  const serverName = values['xds-server-name'] ?? env.GW_XDS_SERVER_NAME;
  const listenAddress = values['listen-address'] ?? env.GW_LISTEN_ADDRESS;
  return {
    limits: { ...limitsFromConfig(boot.limits, configFile ?? ''), ...drainOf(boot, configFile) },
    address,
    gateway,
    podName: values['pod-name'] ?? env.POD_NAME ?? hostname(),
    ...(tokenFile ? { tokenFile } : {}),
    ...(caFile ? { caFile } : {}),
    ...(serverName ? { serverName } : {}),
    ...(listenAddress ? { listenAddress } : {}),
    ...catalogOf(boot, configFile),
    ...adminOf(values, env, boot),
  };
}

/** The bootstrap file's catalog files, checked: a list of absolute paths. */
function catalogOf(boot: Bootstrap, configFile: string | undefined): { modelCatalogFiles?: string[] } {
  const files = boot.modelCatalog?.files;
  if (files === undefined) return {};
  if (!Array.isArray(files) || files.some((f) => typeof f !== 'string' || !f.startsWith('/')))
    throw new Error(`--config ${configFile}: modelCatalog.files: must be a list of absolute paths`);
  return files.length > 0 ? { modelCatalogFiles: files as string[] } : {};
}

/**
 * Runs until SIGTERM or SIGINT, then drains (docs/proxy.md "Shutdown"): SIGTERM keeps serving for the
 * minimum delay first, SIGINT (an operator at a terminal) skips it; a second signal exits at once.
 */
export function untilSignal(
  proxy: { runtime: { drain(plan?: { minMs?: number }): Promise<unknown> }; close(): Promise<void> },
  log: Logger,
): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) {
        log.warn({ signal }, 'second signal: exiting without waiting for the drain');
        void proxy.close().then(() => resolve(0));
        return;
      }
      stopping = true;
      log.info({ signal }, 'shutting down: draining; a second Ctrl-C (or signal) exits at once');
      void proxy.runtime
        .drain(signal === 'SIGINT' ? { minMs: 0 } : {})
        .then(() => proxy.close())
        .then(() => resolve(0));
    };
    if (cluster.isWorker) {
      // A terminal's Ctrl-C reaches every process of its group: a worker takes signals from its primary only.
      process.on('SIGINT', () => undefined);
      process.on('message', (m: { gw?: unknown; signal?: unknown }) => {
        if (m?.gw === 'signal' && typeof m.signal === 'string') stop(m.signal);
      });
    } else process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
}

export async function runXdsProxy(
  opts: XdsProxyOptions,
  log: Logger,
  onStarted?: (proxy: XdsProxy) => void,
): Promise<number> {
  const { startXdsProxy } = await import('../proxy/xds-config.js');
  const proxy = await startXdsProxy(opts);
  onStarted?.(proxy);
  log.info(
    {
      xds: opts.address,
      gateway: opts.gateway,
      pod: opts.podName,
      tls: opts.caFile !== undefined,
      ready: proxy.ops.readyPort,
      metrics: proxy.ops.metricsPort,
      ...(proxy.admin ? { ui: `http://${opts.admin?.address.replace(/:\d+$/, '')}:${proxy.admin.port}/` } : {}),
    },
    'proxy started in xds mode',
  );
  return untilSignal(proxy, log);
}
