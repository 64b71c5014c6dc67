// Retries of forwarded requests (GwPolicy `traffic.retry`): when a retry may happen, how long to wait,
// and the buffered request body that makes a retry safe to send again. Behaviour: docs/proxy.md "Traffic policy".
import type { IncomingMessage } from 'node:http';
import type { RetryPlan } from './traffic-policy.js';

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** The socket error code of an upstream failure (undici puts it on the error or its cause). */
export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  return String(e?.code ?? e?.cause?.code ?? '');
}

/**
 * `connect`: the connection was never made, so nothing reached the upstream; `reset`: the connection broke
 * (the upstream may have received the request); undefined: anything else (timeouts, TLS, protocol errors).
 */
export function failureKind(err: unknown): 'connect' | 'reset' | undefined {
  const code = errorCode(err);
  if (CONNECT_CODES.has(code)) return 'connect';
  if (RESET_CODES.has(code)) return 'reset';
  return undefined;
}

// Exponential backoff stops growing here, so ten attempts do not wait minutes.
const MAX_BACKOFF_FACTOR = 8;

/** Wait before retry number `retry` (1-based): the backoff, doubled per earlier retry, at most 8 times it. */
export function retryDelayMs(plan: RetryPlan, retry: number): number {
  return plan.backoffMs * Math.min(MAX_BACKOFF_FACTOR, 2 ** Math.max(0, retry - 1));
}

/**
 * Whether the outcome of try number `tried` (1-based) may be retried: the plan has attempts left and the
 * upstream answered one of the plan's codes, or could not be connected to (nothing reached it).
 */
export function mayRetry(plan: RetryPlan | undefined, tried: number, outcome: { status: number } | 'connect'): boolean {
  if (!plan || tried > plan.attempts) return false;
  return outcome === 'connect' || plan.codes.has(outcome.status);
}

/**
 * The whole request body; 'too_large' as soon as it passes `limit` bytes (the rest is drained); 'gone'
 * when the client left before sending all of it.
 */
export function bufferBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large' | 'gone'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size <= limit) chunks.push(c);
      else {
        req.off('data', onData);
        req.resume();
        resolve('too_large');
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', () => resolve('gone'));
    req.once('close', () => {
      if (!req.complete) resolve('gone');
    });
  });
}

/** Resolves after `ms`, or at once when `signal` aborts (the caller checks the signal). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
