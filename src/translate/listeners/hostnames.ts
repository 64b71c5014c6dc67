// Gateway API hostname intersection between a listener and a route.

function wildcardCovers(wild: string, host: string): boolean {
  // `*.example.com` matches one or more leading labels, never the bare suffix.
  const suffix = wild.slice(1);
  return host.endsWith(suffix) && host.length > suffix.length;
}

/** Host names the route serves on this listener: [] means "whatever the listener serves", undefined means none. */
export function intersectHostnames(listener: string | undefined, route: readonly string[]): string[] | undefined {
  if (route.length === 0) return listener === undefined ? [] : [listener];
  if (listener === undefined) return [...route];
  const out = new Set<string>();
  for (const h of route) {
    if (h === listener) out.add(h);
    else if (listener.startsWith('*.') && !h.startsWith('*.') && wildcardCovers(listener, h)) out.add(h);
    else if (h.startsWith('*.') && !listener.startsWith('*.') && wildcardCovers(h, listener)) out.add(listener);
    else if (h.startsWith('*.') && listener.startsWith('*.')) {
      if (wildcardCovers(listener, h.slice(2))) out.add(h);
      else if (wildcardCovers(h, listener.slice(2))) out.add(listener);
    }
  }
  return out.size === 0 ? undefined : [...out].sort();
}
