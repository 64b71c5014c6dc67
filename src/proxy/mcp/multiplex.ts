// Naming across targets: which names carry the target prefix, and which target an exposed name
// belongs to. Pure, so prefix rules are tested without servers.
import type { PrefixMode } from '../../ir/types.js';

export const separator = '_';

export function usesPrefix(mode: PrefixMode, targetCount: number): boolean {
  if (mode === 'ALWAYS') return true;
  if (mode === 'NEVER') return false;
  return targetCount > 1;
}

export function exposedName(target: string, name: string, prefixed: boolean): string {
  return prefixed ? `${target}${separator}${name}` : name;
}

/** Splits a prefixed name; the longest matching target name wins so `a_b_tool` finds target `a_b`. */
export function splitPrefixed(
  exposed: string,
  targets: readonly string[],
): { target: string; name: string } | undefined {
  let best: string | undefined;
  for (const t of targets) {
    if (exposed.startsWith(`${t}${separator}`) && (best === undefined || t.length > best.length)) best = t;
  }
  return best === undefined ? undefined : { target: best, name: exposed.slice(best.length + separator.length) };
}

/** A multiplexed list cursor: each target that has more pages, with its own cursor. */
export function encodeCursor(pending: Record<string, string>): string | undefined {
  return Object.keys(pending).length === 0 ? undefined : Buffer.from(JSON.stringify(pending)).toString('base64url');
}

export function decodeCursor(cursor: string): Record<string, string> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const entries = Object.entries(value as Record<string, unknown>);
    if (!entries.every(([, v]) => typeof v === 'string')) return undefined;
    return Object.fromEntries(entries) as Record<string, string>;
  } catch {
    return undefined;
  }
}
