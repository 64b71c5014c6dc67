// Where a listener serves MCP: the hint of a 404 for an MCP client pointed at the wrong URL.
import type { CompiledListener } from '../compiled.js';

/** The exact and prefix paths of the listener's MCP routes, sorted. */
export function mcpPathsOf(listener: CompiledListener | undefined): string[] {
  const paths = new Set<string>();
  for (const r of listener?.routes ?? []) {
    if (r.llm || r.forward || r.noBackend) continue;
    for (const m of r.route.routeMatches) {
      const p = m.path?.kind === 'exact' ? m.path.exact : m.path?.kind === 'prefix' ? m.path.prefix : undefined;
      if (p) paths.add(p);
    }
  }
  return [...paths].sort();
}
