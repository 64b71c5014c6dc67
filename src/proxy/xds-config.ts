// xDS mode: configuration comes from the controller over the delta stream instead of a file. Each
// update is folded into the held resource set and the whole set goes through `runtime.apply`, the same
// atomic path a file reload takes. Ready only after the first complete snapshot; while the controller
// is away nothing changes and the last applied set keeps serving.
import type { Logger } from 'pino';
import { ProblemError, formatProblem } from '../problem.js';
import type { Resource } from '../ir/types.js';
import { createXdsClient, type ApplyResult, type XdsClient, type XdsUpdate } from '../xds/client.js';
import type { BackoffOptions } from '../xds/backoff.js';
import type { RouteSecurityFactory } from './auth/hooks.js';
import { startOps, type OpsServers } from './ops.js';
import { ProxyRuntime } from './runtime.js';
import { planUpdate, toSnapshot, type ResourceError } from './xds-resources.js';
import type { ProxyLimits } from './limits.js';

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
}

export interface XdsProxy {
  runtime: ProxyRuntime;
  ops: OpsServers;
  client: XdsClient;
  close(): Promise<void>;
}

/** Applies xDS updates to a runtime; exported apart from the client so it can be driven directly. */
export function createXdsApplier(
  runtime: ProxyRuntime,
  log: Logger,
  source: string,
  listenAddress?: string,
): (update: XdsUpdate) => Promise<ApplyResult> {
  let held = new Map<string, Resource>();
  let generation = 0;
  return async (update) => {
    const plan = planUpdate(held, update, source);
    for (const p of plan.dropped)
      log.warn(
        { object: p.object, path: p.path },
        `held resource dropped, the update left it inconsistent: ${formatProblem(p)}`,
      );
    const errors: ResourceError[] = [...plan.errors];
    let next = plan.next;
    // A bind that cannot listen (port taken) is the one failure only the runtime can find: leave it out and retry once.
    for (let attempt = 0; ; attempt++) {
      try {
        await runtime.apply(toSnapshot(next, `xds-${++generation}`, listenAddress), source);
        break;
      } catch (err) {
        const culprits = attempt === 0 && err instanceof ProblemError ? bindsOf(err, next, update) : [];
        if (culprits.length === 0) {
          runtime.metrics.reloads.inc({ result: 'rejected' });
          throw err;
        }
        const replan = planUpdate(
          held,
          { ...update, upserts: update.upserts.filter((u) => !culprits.some((c) => c.name === u.name)) },
          source,
        );
        errors.push(...culprits, ...replan.errors.filter((e) => !errors.some((x) => x.name === e.name)));
        next = replan.next;
      }
    }
    held = next;
    runtime.metrics.reloads.inc({ result: errors.length > 0 ? 'partial' : 'applied' });
    // One line per update: "applied" only when nothing was rejected (the client warns with the errors).
    log.info(
      { upserts: update.upserts.length, removes: update.removes.length, rejected: errors.length, resources: held.size },
      errors.length > 0 ? 'xds update applied in part' : 'xds update applied',
    );
    return { errors };
  };
}

function bindsOf(err: ProblemError, next: ReadonlyMap<string, Resource>, update: XdsUpdate): ResourceError[] {
  const out: ResourceError[] = [];
  for (const p of err.problems) {
    // The runtime names the bind (`Bind NAME`) or, for a failed listen, only the port in its message.
    const named = /^Bind (.+)$/.exec(p.object ?? '')?.[1];
    const port = /cannot listen on .*:(\d+):/.exec(p.message)?.[1];
    for (const [name, r] of next) {
      if (!r.bind || !update.upserts.some((u) => u.name === name) || out.some((e) => e.name === name)) continue;
      if (r.bind.name === named || (named === undefined && port !== undefined && String(r.bind.port) === port)) {
        out.push({ name, message: `${p.path ? `${p.path}: ` : ''}${p.message}` });
      }
    }
  }
  return out;
}

export async function startXdsProxy(opts: XdsProxyOptions): Promise<XdsProxy> {
  const { log } = opts;
  const runtime = new ProxyRuntime({
    log,
    ...(opts.security ? { security: opts.security } : {}),
    ...(opts.sessionIdleMs ? { sessionIdleMs: opts.sessionIdleMs } : {}),
    ...(opts.serverInfo ? { serverInfo: opts.serverInfo } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
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
  c.once('ready', () =>
    log.info({ gateway: opts.gateway, ports: runtime.boundPorts() }, 'first snapshot applied; ready'),
  );
  return {
    runtime,
    ops,
    client: c,
    close: async () => {
      c.close();
      await ops.close();
      await runtime.close();
    },
  };
}
