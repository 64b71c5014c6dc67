// GwPolicy `frontend.http.http1HeaderCase: Preserve`: header names keep the case they were written in on an
// HTTP/1.1 hop (HTTP/2 requires lower case). Node and undici hand the proxy lower-cased names; the case
// comes from the raw lists (the client's `rawHeaders`, undici's `responseHeaders: 'raw'`) and is put back
// when the proxy writes the headers on, for the peers that depend on it.

type Headers = Record<string, string | string[] | undefined>;

/** Lower-cased name → the name as written, from a raw `[name, value, name, value, …]` list. */
export function caseOf(raw: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (lower !== name && !names.has(lower)) names.set(lower, name);
  }
  return names;
}

/** `headers` with each name written as `names` has it (names it lacks stay as they are). */
export function recased<T extends Headers>(headers: T, names: ReadonlyMap<string, string>): T {
  if (names.size === 0) return headers;
  const out: Headers = {};
  for (const [k, v] of Object.entries(headers)) out[names.get(k) ?? k] = v;
  return out as T;
}

/** A raw `[name, value, …]` list as Node's lower-cased header object (repeated names joined as Node does). */
export function lowerCased(raw: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] ?? '';
    const had = out[name];
    if (had === undefined) out[name] = name === 'set-cookie' ? [value] : value;
    else if (Array.isArray(had)) had.push(value);
    else out[name] = `${had}, ${value}`;
  }
  return out;
}
