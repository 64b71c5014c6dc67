// Seed 000 Limits: the data plane's connection pool to guardrail webhooks, from its environment
// (set through GwParameters `env`), plus the call timeout the seed leaves open (docs/guardrails.md).
import { Agent } from '../http/undici.js';
import { ProblemError, type Problem } from '../../problem.js';

export interface WebhookPoolSettings {
  /** Per webhook server (origin); 0 means no limit. */
  maxConnections: number;
  keepAliveSeconds: number;
  /** Deadline for one webhook call, connect to last body byte. */
  timeoutSeconds: number;
}

const SETTINGS = [
  { name: 'GUARDRAIL_WEBHOOK_MAX_CONNECTIONS', key: 'maxConnections', def: 100, min: 0 },
  { name: 'GUARDRAIL_WEBHOOK_KEEPALIVE_SECONDS', key: 'keepAliveSeconds', def: 300, min: 1 },
  { name: 'GUARDRAIL_WEBHOOK_TIMEOUT_SECONDS', key: 'timeoutSeconds', def: 10, min: 1 },
] as const;
const MAX = 1_000_000;

/** Unset or empty variables take their defaults; anything else must be a whole number in range, or this throws. */
export function webhookPoolSettings(env: Record<string, string | undefined>): WebhookPoolSettings {
  const out: WebhookPoolSettings = { maxConnections: 100, keepAliveSeconds: 300, timeoutSeconds: 10 };
  const problems: Problem[] = [];
  for (const s of SETTINGS) {
    const raw = env[s.name]?.trim();
    if (raw === undefined || raw === '') {
      out[s.key] = s.def;
      continue;
    }
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (Number.isInteger(n) && n >= s.min && n <= MAX) out[s.key] = n;
    else
      problems.push({
        source: 'environment',
        path: s.name,
        message: `must be a whole number from ${s.min} to ${MAX}, got ${JSON.stringify(raw)}`,
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
