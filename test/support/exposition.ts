// The metric families a Prometheus text exposition (a `/metrics` answer) declares, and whether a name a
// query selects is one of them, histogram and summary series (`_bucket`, `_sum`, `_count`) included.

/** Family name → type, from the `# TYPE` and `# HELP` lines (a family with HELP only is `untyped`). */
export function exposedFamilies(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (\S+))?/.exec(line);
    if (!m) continue;
    const [, kind, name, rest] = m as unknown as [string, string, string, string | undefined];
    if (kind === 'TYPE') families.set(name, rest ?? 'untyped');
    else if (!families.has(name)) families.set(name, 'untyped');
  }
  return families;
}

/** True when selecting `name` reads a series of one of `families`. */
export function isExposed(name: string, families: Map<string, string>): boolean {
  if (families.has(name)) return true;
  const m = /^(.+)_(bucket|sum|count)$/.exec(name);
  if (!m) return false;
  const type = families.get(m[1] as string);
  return type === 'histogram' || (type === 'summary' && m[2] !== 'bucket');
}
