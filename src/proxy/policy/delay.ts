// GwPolicy `traffic.delay`: how long a request waits before it is sent on. A CEL delay reads the request;
// a value that is not a duration, or does not evaluate, means no delay (the seed: non-positive gives none).
import type { IncomingMessage } from 'node:http';
import { parseDurationMs } from '../../ir/duration.js';
import type { DelayPlan } from './traffic-policy.js';
import { requestOf } from './direct-response.js';

/** Milliseconds to wait before dispatching `req`; 0 for none. */
export function delayMs(delay: DelayPlan | undefined, req: IncomingMessage): number {
  if (!delay) return 0;
  if (delay.kind === 'fixed') return delay.ms;
  const value = delay.program.evaluate({ request: requestOf(req) });
  if (typeof value === 'string') return parseDurationMs(value) ?? 0;
  if (typeof value === 'number' || typeof value === 'bigint') return Math.max(0, Number(value));
  // A CEL duration (google.protobuf.Duration): seconds and nanos.
  const d = value as { seconds?: bigint | number; nanos?: number } | null;
  if (d && typeof d === 'object' && 'seconds' in d)
    return Math.max(0, Number(d.seconds ?? 0) * 1000 + Math.floor((d.nanos ?? 0) / 1e6));
  return 0;
}
