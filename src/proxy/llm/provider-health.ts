// Which LLM providers to try, in what order: priority groups in turn, a random order inside a group,
// providers that failed recently left out for a backoff. When all are backing off, the one back soonest is
// probed anyway (like a load balancer's panic mode), so one bad answer from a lone provider does not black
// out its route for the whole backoff; only providers that asked to be left alone (Retry-After) are not.
// The clock and randomness are passed in.
import type { LlmProvider } from './llm-route.js';

/** First backoff after a failure; doubled per further consecutive failure up to MAX_BACKOFF_MS. */
export const BASE_BACKOFF_MS = 5_000;
export const MAX_BACKOFF_MS = 60_000;

interface State {
  failures: number;
  until: number;
  retryAfter: boolean;
}

export class ProviderHealth {
  private readonly states = new Map<string, State>();

  constructor(
    private readonly clock: () => number,
    private readonly random: () => number,
  ) {}

  /** Providers to try for one request: healthy ones group by group, shuffled within a group; else one probe. */
  order(backend: string, groups: readonly (readonly LlmProvider[])[]): LlmProvider[] {
    const now = this.clock();
    const healthy = groups.flatMap((g) =>
      this.shuffle(g.filter((p) => (this.states.get(key(backend, p))?.until ?? 0) <= now)),
    );
    if (healthy.length > 0) return healthy;
    const until = (p: LlmProvider): number => this.states.get(key(backend, p))?.until ?? 0;
    const probe = groups
      .flat()
      .filter((p) => !this.states.get(key(backend, p))?.retryAfter)
      .sort((a, b) => until(a) - until(b))[0];
    return probe ? [probe] : [];
  }

  /** A failure (connect, timeout, 5xx, 429): out of rotation for the backoff, or `retryAfterMs` if longer (capped). */
  failed(backend: string, p: LlmProvider, retryAfterMs = 0): void {
    const k = key(backend, p);
    const failures = (this.states.get(k)?.failures ?? 0) + 1;
    const backoff = Math.min(MAX_BACKOFF_MS, Math.max(BASE_BACKOFF_MS * 2 ** (failures - 1), retryAfterMs));
    this.states.set(k, { failures, until: this.clock() + backoff, retryAfter: retryAfterMs > 0 });
  }

  succeeded(backend: string, p: LlmProvider): void {
    this.states.delete(key(backend, p));
  }

  /** Milliseconds until the first provider of the backend is back; for Retry-After when none may be probed. */
  nextRetryMs(backend: string, groups: readonly (readonly LlmProvider[])[]): number {
    const now = this.clock();
    const untils = groups.flat().map((p) => (this.states.get(key(backend, p))?.until ?? now) - now);
    return Math.max(0, Math.min(...untils));
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

const key = (backend: string, p: LlmProvider): string => `${backend}\0${p.name}`;
