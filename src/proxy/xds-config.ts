// xDS mode: configuration comes from the controller over the delta stream instead of a file. Each
// update is folded into the held resource set and the whole set goes through `runtime.apply`, the same
// atomic path a file reload takes (src/proxy/xds-apply.ts leaves out, and NACKs, what it refuses). Ready only after the first complete snapshot; while the controller
// is away nothing changes and the last applied set keeps serving.
import type { SessionKeys } from './mcp/session-keys.js';
import type { Logger } from 'pino';
import { createXdsClient, type XdsClient } from '../xds/client.js';
import type { BackoffOptions } from '../xds/backoff.js';
import type { RouteSecurityFactory } from './auth/hooks.js';
import { startOps, type OpsServers } from './ops.js';
import { ProxyRuntime } from './runtime.js';
import { createXdsApplier } from './xds-apply.js';
import type { ProxyLimits } from './limits.js';
import { startAdmin, type AdminServer } from './admin/server.js';
import { proxyAdminApi, trackXds } from './admin/api.js';
import { uiDir } from './admin/ui-dir.js';
import type { IdentityProvider } from './identity/from-env.js';

export { createXdsApplier } from './xds-apply.js';

export interface XdsProxyOptions {
  /** `host:port` of the controller's xDS port. */
  address: string;
  /** `namespace/name` of the Gateway to serve. */
  gateway: string;
  podName: string;
  tokenFile?: string;
  caFile?: string;
  serverName?: string;
  /** Binds the IR leaves without an address listen here (default: all interfaces). */
  listenAddress?: string;
  log: Logger;
  readyAddress: string;
  metricsAddress: string;
  security?: RouteSecurityFactory;
  sessionIdleMs?: number;
  /** Session, connection and time limits (src/proxy/limits.ts); unset ones take the defaults. */
  limits?: Partial<ProxyLimits>;
  serverInfo?: { name: string; title: string; version: string };
  backoff?: BackoffOptions;
  /** Keys sealing MCP session ids (SESSION_KEY); unset: a random key of this process. */
  sessionKeys?: SessionKeys;
  /** Model catalog files (`--model-catalog`; GwParameters `modelCatalog` in a cluster): see RuntimeOptions. */
  modelCatalogFiles?: readonly string[];
  /** The web UI and its API (`--admin-address`, docs/ui.md); unset: none. */
  /** `optional`: the built-in default, not asked for; failing to bind it logs a warning instead of stopping. */
  admin?: { address: string; tokenFile?: string; worker?: number; optional?: boolean };
  /** The workload identity (src/proxy/identity/from-env.ts); closed with the proxy. */
  identity?: IdentityProvider;
}

export interface XdsProxy {
  runtime: ProxyRuntime;
  ops: OpsServers;
  client: XdsClient;
  admin?: AdminServer;
  close(): Promise<void>;
}

export async function startXdsProxy(opts: XdsProxyOptions): Promise<XdsProxy> {
  const { log } = opts;
  const runtime = new ProxyRuntime({
    log,
    ...(opts.security ? { security: opts.security } : {}),
    ...(opts.sessionIdleMs ? { sessionIdleMs: opts.sessionIdleMs } : {}),
    ...(opts.serverInfo ? { serverInfo: opts.serverInfo } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.sessionKeys ? { sessionKeys: opts.sessionKeys } : {}),
    ...(opts.modelCatalogFiles ? { modelCatalogFiles: opts.modelCatalogFiles } : {}),
    ...(opts.identity ? { identity: opts.identity.identity } : {}),
  });
  // The readiness check needs the client, which must not connect before the ops ports are bound.
  const holder: { client?: XdsClient } = {};
  let ops: OpsServers;
  try {
    ops = await startOps({
      readyAddress: opts.readyAddress,
      metricsAddress: opts.metricsAddress,
      isReady: () => (holder.client?.ready ?? false) && runtime.ready,
      registry: runtime.metrics.registry,
    });
  } catch (err) {
    await runtime.close();
    throw err;
  }
  const c = createXdsClient({
    address: opts.address,
    gateway: opts.gateway,
    podName: opts.podName,
    log,
    ...(opts.tokenFile ? { tokenFile: opts.tokenFile } : {}),
    ...(opts.caFile ? { caFile: opts.caFile } : {}),
    ...(opts.serverName ? { serverName: opts.serverName } : {}),
    ...(opts.backoff ? { backoff: opts.backoff } : {}),
    ...(opts.serverInfo ? { buildVersion: opts.serverInfo.version } : {}),
    apply: createXdsApplier(runtime, log, `xds ${opts.address}`, opts.listenAddress),
  });
  holder.client = c;
  let admin: AdminServer | undefined;
  try {
    admin = await startAdminOf(opts, runtime, c);
  } catch (err) {
    c.close();
    await ops.close();
    await runtime.close();
    throw err;
  }
  c.once('ready', () =>
    log.info({ gateway: opts.gateway, ports: runtime.boundPorts() }, 'first snapshot applied; ready'),
  );
  return {
    runtime,
    ops,
    client: c,
    ...(admin ? { admin } : {}),
    close: async () => {
      c.close();
      await admin?.close();
      await ops.close();
      await runtime.close();
      opts.identity?.close();
    },
  };
}

/** The web UI of `opts.admin`; the built-in default (`optional`) only warns when its port is taken. */
async function startAdminOf(
  opts: XdsProxyOptions,
  runtime: ProxyRuntime,
  client: XdsClient,
): Promise<AdminServer | undefined> {
  if (!opts.admin) return undefined;
  const info = {
    gateway: opts.gateway,
    pod: opts.podName,
    version: opts.serverInfo?.version ?? '',
    ...(opts.admin.worker ? { worker: opts.admin.worker } : {}),
  };
  const api = proxyAdminApi(runtime, info, trackXds(client));
  try {
    return await startAdmin({ ...opts.admin, uiDir: uiDir(), api });
  } catch (err) {
    if (!opts.admin.optional) throw err;
    opts.log.warn(
      { err: (err as Error).message },
      'web UI not started (the default port is taken); set --admin-address',
    );
    return undefined;
  }
}
