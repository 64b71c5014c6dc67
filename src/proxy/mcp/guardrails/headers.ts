// Which client request headers a processor receives. Names compare case-insensitively; an empty allowed
// list forwards every header and pseudo-header; the disallowed list always wins.

export interface HeaderRules {
  allowed: ReadonlySet<string>;
  disallowed: ReadonlySet<string>;
}

export function headerRules(allowed: readonly string[], disallowed: readonly string[]): HeaderRules {
  return {
    allowed: new Set(allowed.map((h) => h.toLowerCase())),
    disallowed: new Set(disallowed.map((h) => h.toLowerCase())),
  };
}

/** The client request as the processor sees it: pseudo-headers (`:method`, `:path`, `:authority`) and headers, lower case. */
export function forwardedHeaders(
  request: { method: string; path: string; headers: Record<string, string> },
  rules: HeaderRules,
): Record<string, string> {
  const all: Record<string, string> = { ':method': request.method, ':path': request.path };
  if (request.headers.host !== undefined) all[':authority'] = request.headers.host;
  for (const [k, v] of Object.entries(request.headers)) all[k.toLowerCase()] = v;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) {
    if (rules.disallowed.has(k)) continue;
    if (rules.allowed.size > 0 && !rules.allowed.has(k)) continue;
    out[k] = v;
  }
  return out;
}
