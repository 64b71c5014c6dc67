// ByteSize values of merged policy fields (`buffer.request.maxBytes`, `extAuth.forwardBody.maxSize`) as
// numbers; its own file because the typed policy, the traffic policy and ext-auth all read them.

const UNITS: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, ki: 1024, mi: 1024 ** 2, gi: 1024 ** 3 };

/** `2Mi`, `2mb`, `1048576` → bytes; undefined when unreadable. */
export function parseByteSize(v: string | number | undefined): number | undefined {
  if (typeof v === 'number') return v;
  const m = /^([0-9]+)\s*([kmg]i?)?b?$/i.exec(v ?? '');
  if (!m) return undefined;
  const unit = UNITS[(m[2] ?? '').toLowerCase()];
  return unit === undefined ? undefined : Number(m[1]) * unit;
}
