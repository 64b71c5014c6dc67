// Seed 000 Limits: the data plane's connection pool to guardrail webhooks, from its environment
// (set through GwParameters `env`), plus the call timeout and the streamed-answer buffer the seed leaves open
// (docs/guardrails.md).
import { Agent } from '../http/undici.js';
import { ProblemError, type Problem } from '../../problem.js';

export interface WebhookPoolSettings {
  /** Per webhook server (origin); 0 means no limit. */
  maxConnections: number;
  keepAliveSeconds: number;
  /** Deadline for one webhook call, connect to last body byte. */
  timeoutSeconds: number;
  /** Most bytes of one streamed answer held for response guards (`promptGuard.streaming: Buffered`). */
  streamBufferBytes: number;
}

const MAX = 1_000_000;
const SETTINGS = [
  { name: 'GUARDRAIL_WEBHOOK_MAX_CONNECTIONS', key: 'maxConnections', def: 100, min: 0, max: MAX },
  { name: 'GUARDRAIL_WEBHOOK_KEEPALIVE_SECONDS', key: 'keepAliveSeconds', def: 300, min: 1, max: MAX },
  { name: 'GUARDRAIL_WEBHOOK_TIMEOUT_SECONDS', key: 'timeoutSeconds', def: 10, min: 1, max: MAX },
  // As much as a buffered (non-streamed) answer may carry (llm-response.ts MAX_RESPONSE_BYTES), up to 64 MiB.
  { name: 'GUARDRAIL_STREAM_BUFFER_BYTES', key: 'streamBufferBytes', def: 8 << 20, min: 1024, max: 64 << 20 },
] as const;

/** Unset or empty variables take their defaults; anything else must be a whole number in range, or this throws. */
export function webhookPoolSettings(env: Record<string, string | undefined>): WebhookPoolSettings {
  const out = Object.fromEntries(SETTINGS.map((s) => [s.key, s.def])) as unknown as WebhookPoolSettings;
  const problems: Problem[] = [];
  for (const s of SETTINGS) {
    const raw = env[s.name]?.trim();
    if (raw === undefined || raw === '') continue;
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (Number.isInteger(n) && n >= s.min && n <= s.max) out[s.key] = n;
    else
      problems.push({
        source: 'environment',
        path: s.name,
        message: `must be a whole number from ${s.min} to ${s.max}, got ${JSON.stringify(raw)}`,
      });
  }
  if (problems.length > 0) throw new ProblemError(problems);
  return out;
}

export function webhookAgent(s: WebhookPoolSettings): Agent {
  const idleMs = s.keepAliveSeconds * 1000;
  return new Agent({
    connections: s.maxConnections === 0 ? null : s.maxConnections,
    keepAliveTimeout: idleMs,
    keepAliveMaxTimeout: idleMs,
  });
}
