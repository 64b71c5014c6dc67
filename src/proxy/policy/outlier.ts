// Passive health (outlier detection, `backend.health`): the members of a pool (a route's HTTP backends, an
// AI backend's providers, an MCP backend's targets, GwModels) that failed `consecutiveFailures` times in a
// row are ejected (left out of the choice) for a backoff doubling per ejection without a success between,
// up to a cap; a 429's Retry-After ejects at once for at least that long. At most `maxEjectionPercent` of a
// pool is ejected at once (at least one member when above 0, Envoy's rule); when every member is ejected the
// callers keep serving (panic), never refuse for want of a healthy member. A success clears the record and
// feeds an EWMA of latency that orders equal-priority members. State lives in one proxy replica; the clock
// is passed in. Behaviour: docs/proxy.md "Passive health".
import type { OutlierDetection } from '../../ir/types.js';
import { compileCel, expressionVariables, type CompiledCel } from './cel/env.js';

export interface OutlierSettings {
  consecutiveFailures: number;
  baseEjectionMs: number;
  maxEjectionMs: number;
  /** 0-100 of the pool. */
  maxEjectionPercent: number;
  /** `unhealthyCondition`, compiled once per snapshot: decides which responses are failures. */
  unhealthy?: CompiledCel;
}

/** An LLM provider without `health`: out for 5 s after one failure, doubled up to 60 s; the whole pool may be out. */
export const LLM_BACKOFF: OutlierSettings = {
  consecutiveFailures: 1,
  baseEjectionMs: 5_000,
  maxEjectionMs: 60_000,
  maxEjectionPercent: 100,
};

/**
 * The IR's resolved `health`, or undefined when it is unset. Its `unhealthyCondition` is compiled here, when
 * the snapshot is applied; one the translator let through that does not compile leaves the default rule
 * (the translator refuses such an object, so this only guards a snapshot from elsewhere).
 */
export function outlierSettings(h: OutlierDetection | null | undefined): OutlierSettings | undefined {
  if (!h) return undefined;
  const unhealthy = h.unhealthyCondition ? compiledCondition(h.unhealthyCondition) : undefined;
  return {
    consecutiveFailures: Math.max(1, h.consecutiveFailures),
    baseEjectionMs: h.baseEjectionMs,
    maxEjectionMs: Math.max(h.maxEjectionMs, h.baseEjectionMs),
    maxEjectionPercent: Math.min(100, h.maxEjectionPercent),
    ...(unhealthy ? { unhealthy } : {}),
  };
}

function compiledCondition(source: string): CompiledCel | undefined {
  try {
    return compileCel(source, expressionVariables.unhealthyCondition);
  } catch {
    return undefined;
  }
}

/**
 * Whether an answer counts as a failure: what `unhealthyCondition` says when it evaluates to a boolean (over
 * `response.code` and `response.headers`), else the default rule, a 5xx or a 429. No answer at all (connect
 * error, reset, timeout) is a failure whatever the condition.
 */
export function unhealthyAnswer(
  s: OutlierSettings | undefined,
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): boolean {
  if (s?.unhealthy) {
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) flat[k] = [v].flat().join(',');
    const v = s.unhealthy.evaluate({ response: { code: status, headers: flat } });
    if (typeof v === 'boolean') return v;
  }
  return status >= 500 || status === 429;
}

/** A Retry-After header (seconds or an HTTP-date) in ms from `now`; 0 when absent or unreadable. */
export function retryAfterMs(v: unknown, now: number): number {
  const text = String(Array.isArray(v) ? v[0] : (v ?? '')).trim();
  if (text === '') return 0;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return seconds > 0 ? seconds * 1000 : 0;
  const at = Date.parse(text);
  return Number.isFinite(at) && at > now ? at - now : 0;
}

/** Weight of the newest sample in the latency average. */
const EWMA_ALPHA = 0.3;

interface Member {
  failures: number;
  /** Ejections since the last success: the backoff's exponent. */
  ejections: number;
  /** Ejected until this time (ms); 0 when never ejected. */
  until: number;
  /** The last ejection was a Retry-After the upstream asked for. */
  retryAfter: boolean;
  /** Latency EWMA (ms) of successes; undefined before the first. */
  ewmaMs?: number;
}

/** Why a member was ejected: the label of gw_upstream_ejections_total. */
export type EjectionReason = 'failures' | 'retry_after';

export interface OutlierEvents {
  ejected(pool: string, member: string, reason: EjectionReason): void;
}

export class OutlierDetector {
  private readonly pools = new Map<string, Map<string, Member>>();

  constructor(
    private readonly clock: () => number,
    private readonly events?: OutlierEvents,
  ) {}

  isEjected(pool: string, member: string): boolean {
    return (this.pools.get(pool)?.get(member)?.until ?? 0) > this.clock();
  }

  /** When the member is back (ms, clock time); 0 when it is not ejected. */
  until(pool: string, member: string): number {
    return this.pools.get(pool)?.get(member)?.until ?? 0;
  }

  /** The last ejection came from a Retry-After (so a panic probe leaves it alone). */
  askedToWait(pool: string, member: string): boolean {
    return this.isEjected(pool, member) && (this.pools.get(pool)?.get(member)?.retryAfter ?? false);
  }

  /** Latency EWMA of the member in ms; 0 before its first success, so new members get tried and measured. */
  latencyMs(pool: string, member: string): number {
    return this.pools.get(pool)?.get(member)?.ewmaMs ?? 0;
  }

  /** A success (a panic probe's too): the member is back, failures and the backoff exponent are cleared. */
  succeeded(pool: string, member: string, latencyMs?: number): void {
    const m = this.pools.get(pool)?.get(member);
    if (!m && latencyMs === undefined) return;
    const rec = m ?? this.record(pool, member);
    rec.failures = 0;
    rec.ejections = 0;
    rec.until = 0;
    rec.retryAfter = false;
    if (latencyMs !== undefined)
      rec.ewmaMs = rec.ewmaMs === undefined ? latencyMs : rec.ewmaMs + EWMA_ALPHA * (latencyMs - rec.ewmaMs);
  }

  /**
   * A failure (connect error, reset, timeout, 5xx, 429) of `member`, one of `members` (those it was chosen
   * among): ejects it when it reached the threshold (or the upstream asked for `retryAfterMs`) and the bound
   * on ejected members allows; true if so.
   */
  failed(pool: string, member: string, s: OutlierSettings, members: readonly string[], retryAfterMs = 0): boolean {
    const now = this.clock();
    const rec = this.pools.get(pool)?.get(member) ?? this.record(pool, member);
    // A try that was under way when the member was ejected changes nothing.
    if (rec.until > now) return false;
    rec.failures++;
    if (rec.failures < s.consecutiveFailures && retryAfterMs <= 0) return false;
    if (!this.mayEject(pool, s, members, now)) return false;
    rec.ejections++;
    const backoff = Math.min(s.maxEjectionMs, s.baseEjectionMs * 2 ** (rec.ejections - 1));
    rec.until = now + Math.max(backoff, Math.min(retryAfterMs, s.maxEjectionMs));
    rec.retryAfter = retryAfterMs > 0;
    // Back from this ejection, one more failure ejects again (for longer); a success starts afresh.
    rec.failures = s.consecutiveFailures - 1;
    this.events?.ejected(pool, member, retryAfterMs > 0 ? 'retry_after' : 'failures');
    return true;
  }

  /** Members ejected now, per pool: the gauge gw_upstream_ejected_endpoints. */
  *ejectedNow(): Iterable<[pool: string, member: string]> {
    const now = this.clock();
    for (const [pool, members] of this.pools) for (const [name, m] of members) if (m.until > now) yield [pool, name];
  }

  private mayEject(pool: string, s: OutlierSettings, members: readonly string[], now: number): boolean {
    if (s.maxEjectionPercent <= 0) return false;
    const allowed = Math.max(1, Math.floor((members.length * s.maxEjectionPercent) / 100));
    const records = this.pools.get(pool);
    const ejected = members.filter((m) => (records?.get(m)?.until ?? 0) > now).length;
    return ejected < allowed;
  }

  private record(pool: string, member: string): Member {
    let members = this.pools.get(pool);
    if (!members) this.pools.set(pool, (members = new Map()));
    const rec: Member = { failures: 0, ejections: 0, until: 0, retryAfter: false };
    members.set(member, rec);
    return rec;
  }
}
