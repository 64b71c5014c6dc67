// Reconnect delays: exponential from `initialMs`, capped at `maxMs`, each jittered by ±20% so a fleet
// of proxies losing the same controller does not come back in lockstep.

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

/** Capped at 2 s: a proxy is back within about 2 s of its controller, jitter still spreads a fleet. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 10, maxMs: 2_000 };

/** Delay before reconnect attempt `attempt` (0 for the first); `random` returns [0, 1). */
export function backoffDelay(attempt: number, random: () => number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  const base = Math.min(opts.maxMs, opts.initialMs * 2 ** Math.min(attempt, 30));
  return Math.min(opts.maxMs, Math.round(base * (0.8 + 0.4 * random())));
}
