// Which LLM providers to try, in what order: priority groups in turn, providers that are ejected (passive
// health, policy/outlier.ts) left out, so the next group is reached only when every provider of one is out
// or failed this request. Inside a group: by latency (EWMA, lowest first) where the providers set `health`,
// else in random order. A provider without `health` is out for 5 s after a failure, doubled up to 60 s.
// When all are out, the one back soonest is probed anyway (a load balancer's panic mode: one bad answer
// from a lone provider must not black out its route); only providers that asked to be left alone
// (Retry-After) are not. The clock and randomness are passed in.
import type { LlmProvider } from './llm-route.js';
import {
  LLM_BACKOFF,
  retryAfterMs,
  unhealthyAnswer,
  type OutlierDetector,
  type OutlierSettings,
} from '../policy/outlier.js';

export class ProviderHealth {
  constructor(
    private readonly outliers: OutlierDetector,
    private readonly random: () => number,
  ) {}

  /** Providers to try for one request: healthy ones group by group, fastest (or shuffled) first; else one probe. */
  order(backend: string, groups: readonly (readonly LlmProvider[])[]): LlmProvider[] {
    const o = this.outliers;
    const healthy = groups.flatMap((g) =>
      this.ranked(
        backend,
        g.filter((p) => !o.isEjected(backend, p.name)),
      ),
    );
    if (healthy.length > 0) return healthy;
    const probe = groups
      .flat()
      .filter((p) => !o.askedToWait(backend, p.name))
      .sort((a, b) => o.until(backend, a.name) - o.until(backend, b.name))[0];
    return probe ? [probe] : [];
  }

  /** A failure (connect, timeout, 5xx, 429); `retryAfterMs` is a 429's or 503's Retry-After. */
  failed(backend: string, p: LlmProvider, groups: readonly (readonly LlmProvider[])[], retryAfterMs = 0): void {
    const members = groups.flat().map((m) => m.name);
    this.outliers.failed(backend, p.name, settingsOf(p), members, retryAfterMs);
  }

  /**
   * An answer from `p`: a failure or a success by the provider's `unhealthyCondition`, else by status (5xx
   * and 429 fail; a Retry-After on a failure is honoured). `latencyMs`: time to the response's headers.
   */
  answered(
    backend: string,
    p: LlmProvider,
    groups: readonly (readonly LlmProvider[])[],
    up: { statusCode: number; headers: Readonly<Record<string, string | string[] | undefined>> },
    latencyMs: number,
    now: number,
  ): void {
    if (unhealthyAnswer(p.health, up.statusCode, up.headers))
      this.failed(backend, p, groups, retryAfterMs(up.headers['retry-after'], now));
    else this.succeeded(backend, p, latencyMs);
  }

  /** `latencyMs`: time to the response's headers, for the EWMA that orders a group. */
  succeeded(backend: string, p: LlmProvider, latencyMs: number): void {
    this.outliers.succeeded(backend, p.name, latencyMs);
  }

  /** Milliseconds until the first provider of the backend is back; for Retry-After when none may be probed. */
  nextRetryMs(backend: string, groups: readonly (readonly LlmProvider[])[], now: number): number {
    const untils = groups.flat().map((p) => (this.outliers.until(backend, p.name) || now) - now);
    return Math.max(0, Math.min(...untils));
  }

  /** Latency order when the group's providers set `health` (unmeasured first, ties shuffled); else shuffled. */
  private ranked(backend: string, group: LlmProvider[]): LlmProvider[] {
    const out = this.shuffle(group);
    if (!group.some((p) => p.health)) return out;
    return out.sort((a, b) => this.outliers.latencyMs(backend, a.name) - this.outliers.latencyMs(backend, b.name));
  }

  private shuffle(list: LlmProvider[]): LlmProvider[] {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [out[i], out[j]] = [out[j] as LlmProvider, out[i] as LlmProvider];
    }
    return out;
  }
}

function settingsOf(p: LlmProvider): OutlierSettings {
  return p.health ?? LLM_BACKOFF;
}
