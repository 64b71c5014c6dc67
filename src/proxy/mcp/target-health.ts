// Passive health of an MCP backend's targets (`backend.health` on the route's edge, a target's own from a
// sectionName-targeted GwPolicy: IR BackendRef.health and target_health). The targets of a route's MCP
// backend are one pool of the proxy's outlier detector (policy/outlier.ts), named after the route. An
// ejected target is left out of sessions opened meanwhile and of every list (its tools, prompts and
// resources are not shown), and a call to it answers at once with an error saying so: MCP has no failover
// among targets, so ejection means failing fast instead of waiting on a dead target. When every target
// that sets `health` is ejected, none is left out (panic, as on HTTP routes). Behaviour: docs/proxy.md
// "Passive health".
import type { BackendRef, McpBackend } from '../../ir/types.js';
import { outlierSettings, type OutlierDetector, type OutlierSettings } from '../policy/outlier.js';
import { InternalError, RequestTimeout } from './jsonrpc.js';
import { RpcError, isRpcError } from './rpc-error.js';
import { isSaturated } from './upstream-fetch.js';
import { TargetSessionGone } from './upstream-http.js';
import type { Upstream } from './target-connection.js';

/** The passive health of a route's MCP targets (each its own `health`, else the edge's); undefined when none sets it. */
export function targetHealthOf(
  outliers: OutlierDetector,
  pool: string,
  backend: McpBackend,
  ref: BackendRef | undefined,
  clock: () => number,
): TargetHealth | undefined {
  const settings = new Map<string, OutlierSettings>();
  for (const t of backend.targets) {
    const s = outlierSettings(ref?.targetHealth?.[t.name] ?? ref?.health);
    if (s) settings.set(t.name, s);
  }
  return settings.size > 0 ? new TargetHealth(outliers, pool, settings, clock) : undefined;
}

/** The JSON-RPC code of a connection the SDK client saw close (stdio and legacy SSE targets). */
const ConnectionClosed = -32000;

export class TargetHealth {
  private readonly members: string[];

  constructor(
    private readonly outliers: OutlierDetector,
    /** The pool: the route's name. */
    readonly pool: string,
    /** Targets that set `health`, with their settings; the others are never ejected. */
    private readonly settings: ReadonlyMap<string, OutlierSettings>,
    private readonly clock: () => number,
  ) {
    this.members = [...settings.keys()];
  }

  /** Left out now: ejected, and not every target with `health` is (then all are served: panic). */
  ejected(target: string): boolean {
    if (!this.settings.has(target) || !this.outliers.isEjected(this.pool, target)) return false;
    return !this.members.every((m) => this.outliers.isEjected(this.pool, m));
  }

  /** The error a call to an ejected target answers with (the session puts `target <name>: ` before it). */
  ejectedError(target: string): RpcError {
    const seconds = Math.max(1, Math.ceil((this.outliers.until(this.pool, target) - this.clock()) / 1000));
    return new RpcError(
      InternalError,
      `ejected by passive health (backend.health) after failing repeatedly; it is tried again in ${seconds}s`,
      { target, retryAfterSeconds: seconds },
    );
  }

  /**
   * Runs one exchange with the target and records its outcome (a success with its latency, or a failure);
   * one the client cancelled (`cancelled()` true once it ends) records nothing.
   */
  async observe<T>(target: string, exchange: () => Promise<T>, cancelled = (): boolean => false): Promise<T> {
    const s = this.settings.get(target);
    if (!s) return exchange();
    const t0 = this.clock();
    try {
      const out = await exchange();
      this.outliers.succeeded(this.pool, target, this.clock() - t0);
      return out;
    } catch (err) {
      if (!cancelled() && isTargetFailure(err)) this.outliers.failed(this.pool, target, s, this.members);
      throw err;
    }
  }

  /** Routes the upstream's calls through the ejection check and the record of outcomes (in place, as recovery does). */
  guard(up: Upstream): Upstream {
    if (!this.settings.has(up.name)) return up;
    const call = up.call;
    up.call = (method, params, opts) => {
      if (this.ejected(up.name)) return Promise.reject(this.ejectedError(up.name));
      return this.observe(
        up.name,
        () => call(method, params, opts),
        () => opts.cancel?.aborted === true,
      );
    };
    return up;
  }
}

/**
 * No answer (connect error, reset, timeout, a closed connection) or a 5xx or 429 status; a JSON-RPC error is
 * the target answering, a full local pool and a target session to re-initialize are not the target failing.
 */
export function isTargetFailure(err: unknown): boolean {
  if (err instanceof TargetSessionGone || isSaturated(err)) return false;
  if (isRpcError(err)) return err.code === RequestTimeout || err.code === ConnectionClosed;
  const status = (err as { status?: unknown } | undefined)?.status;
  if (typeof status === 'number') return status >= 500 || status === 429;
  return true;
}
