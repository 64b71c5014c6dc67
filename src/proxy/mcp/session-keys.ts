// The keys MCP session ids are sealed with (SESSION_KEY, docs/proxy.md "Sessions across replicas and
// workers"): parsed from text an environment variable can carry, first key issues, every key opens.
import { randomBytes } from 'node:crypto';

export interface SessionKeys {
  /** Seals new session ids. */
  issue: Buffer;
  /** Opens session ids: the issuing key first, then previous keys during a rotation. */
  accept: Buffer[];
  /** True when no key was configured and a random one was made for this process. */
  generated: boolean;
}

/** One key from base64 (standard or URL alphabet) or hex text of exactly 32 bytes. */
export function parseKey(text: string, name: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === 32) return key;
  }
  throw new Error(`${name} must be 32 bytes written as base64 (44 characters) or hex (64 characters)`);
}

/** SESSION_KEY (one key or a comma-separated list, the first issues) and SESSION_KEY_PREVIOUS (accepted only). */
export function sessionKeysFrom(env: Record<string, string | undefined>): SessionKeys {
  const listed = (name: string): Buffer[] =>
    (env[name] ?? '')
      .split(',')
      .filter((s) => s.trim() !== '')
      .map((s) => parseKey(s, name));
  const current = listed('SESSION_KEY');
  const previous = listed('SESSION_KEY_PREVIOUS');
  const [issue] = current;
  if (!issue) {
    if (previous.length > 0) throw new Error('SESSION_KEY_PREVIOUS is set but SESSION_KEY is not');
    return randomSessionKeys();
  }
  return { issue, accept: [...current, ...previous], generated: false };
}

export function randomSessionKeys(): SessionKeys {
  const issue = randomBytes(32);
  return { issue, accept: [issue], generated: true };
}
