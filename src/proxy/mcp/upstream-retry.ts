// GwPolicy `traffic.retry` on requests to remote MCP targets (streamable HTTP). JSON-RPC requests are not
// idempotent in general, so a request is sent again only when the target cannot have acted on it, or said
// it did not. Behaviour and the reasons: docs/proxy.md "Traffic policy" (Retry on MCP routes).
import { failureKind, retryDelayMs, sleep } from '../policy/retry.js';
import type { RetryPlan } from '../policy/traffic-policy.js';

/**
 * Methods that only read (or, for initialize, open a session the target forgets when idle): sending one
 * twice changes nothing the client can see, so a connection reset before any answer may be retried.
 */
const readOnlyMethods = new Set([
  'initialize',
  'ping',
  'tools/list',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
]);

/** What one try produced: undici's response (the body is dumped before a retry) or what it threw. */
interface Answer {
  statusCode: number;
  body: { dump(): Promise<void> };
}

export interface RetryOptions {
  plan: RetryPlan | undefined;
  /** The JSON-RPC method sent (for a reset: only read-only methods are retried); '' when unknown or not one request. */
  method: string;
  /** The whole budget, all tries and waits included, in ms; undefined for none. */
  timeoutMs: number | undefined;
  signal: AbortSignal | undefined;
  clock?: () => number;
  onRetry?: (tried: number, why: string) => void;
}

/** Whether a try may be sent again: attempts are left and the target did not get it, or said it did not process it. */
export function mcpMayRetry(
  plan: RetryPlan | undefined,
  tried: number,
  method: string,
  outcome: { status: number } | { error: unknown },
): boolean {
  if (!plan || tried > plan.attempts) return false;
  if ('status' in outcome) return plan.codes.has(outcome.status);
  const kind = failureKind(outcome.error);
  return kind === 'connect' || (kind === 'reset' && readOnlyMethods.has(method));
}

/**
 * Sends with `send(headersTimeoutMs)` until the answer is not one to retry, the attempts run out, or the
 * budget would not cover the next wait; then returns the last answer or throws the last error. Only the
 * request and its response status are retried: once a 2xx answer is returned its body is the caller's.
 */
export async function sendWithRetry<R extends Answer>(
  send: (headersTimeoutMs: number | undefined) => Promise<R>,
  o: RetryOptions,
): Promise<R> {
  const now = o.clock ?? Date.now;
  const deadline = o.timeoutMs ? now() + o.timeoutMs : undefined;
  const left = (): number | undefined => (deadline === undefined ? undefined : Math.max(1, deadline - now()));
  for (let tried = 1; ; tried++) {
    let answer: R;
    try {
      answer = await send(left());
    } catch (error) {
      if (
        o.signal?.aborted ||
        !mcpMayRetry(o.plan, tried, o.method, { error }) ||
        !(await backOff(o, tried, 'connection failed', deadline, now))
      )
        throw error;
      continue;
    }
    if (!mcpMayRetry(o.plan, tried, o.method, { status: answer.statusCode })) return answer;
    // Decided before the body is dropped: when no retry fits, the caller reads this answer as usual.
    if (!fits(o, tried, deadline, now)) return answer;
    await answer.body.dump().catch(() => undefined);
    // fits() held, so only an abort ends the wait early: the caller's abort handling takes over.
    if (!(await backOff(o, tried, `status ${answer.statusCode}`, deadline, now)))
      throw o.signal?.reason ?? new Error('aborted');
  }
}

function fits(o: RetryOptions, tried: number, deadline: number | undefined, now: () => number): boolean {
  return !o.signal?.aborted && (deadline === undefined || now() + retryDelayMs(o.plan as RetryPlan, tried) < deadline);
}

async function backOff(
  o: RetryOptions,
  tried: number,
  why: string,
  deadline: number | undefined,
  now: () => number,
): Promise<boolean> {
  if (!fits(o, tried, deadline, now)) return false;
  o.onRetry?.(tried, why);
  await sleep(retryDelayMs(o.plan as RetryPlan, tried), o.signal ?? new AbortController().signal);
  return !o.signal?.aborted;
}
