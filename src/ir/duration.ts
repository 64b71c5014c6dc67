// Gateway API Duration (GEP-2257) arithmetic, shared by the translator (validation, IR milliseconds) and the
// proxy (durations it still receives as text): it lives in src/ir so the proxy never imports src/translate.

// 1 to 4 number+unit pairs, units h, m, s, ms.
const DURATION = /^([0-9]{1,5}(h|m|s|ms)){1,4}$/;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
// IR millisecond fields are uint32; anything longer is effectively "no deadline" and is clamped rather than wrapped.
export const MAX_DURATION_MS = 0xffff_ffff;

// Policies repeat a few durations on every edge they reach (2.4 % of a first full translation at 10k
// objects went to parsing them again); remembered by text, bounded by entries.
const parsed = new Map<string, number | undefined>();
const PARSED_HELD = 1024;

/** Milliseconds of a Gateway API Duration (`1m30s`, `500ms`, `0s`); undefined when it is not one. */
export function parseDurationMs(v: string): number | undefined {
  if (parsed.has(v)) return parsed.get(v);
  if (parsed.size >= PARSED_HELD) parsed.clear();
  const ms = durationMs(v);
  parsed.set(v, ms);
  return ms;
}

function durationMs(v: string): number | undefined {
  if (!DURATION.test(v)) return undefined;
  let total = 0;
  for (const m of v.matchAll(/([0-9]+)(ms|h|m|s)/g)) total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
  return Math.min(total, MAX_DURATION_MS);
}
