// What the admin UI's API shows of the applied snapshot. Built by picking named fields (never by
// copying a resource and deleting what looks secret): a field added to the IR later stays out of the UI
// until someone decides it is safe to show. Policy fields appear by path and source, never by value.
import { resourcesOf } from '../../ir/load.js';
import type { Backend, McpTarget, PathMatch, Refusal, Route, RouteMatch, Snapshot } from '../../ir/types.js';
import type { LlmView, RefusalView, RouteView, SnapshotView, TargetView } from '../../ui-api/types.js';

export type { LlmView, RefusalView, RouteView, SnapshotView, TargetView };

const refusalView = (r: Refusal): RefusalView => ({
  field: r.field,
  source: r.source,
  reason: r.reason,
  security: r.security,
});

function pathText(p: PathMatch | null | undefined): string {
  if (!p?.kind) return 'PathPrefix /';
  if (p.kind === 'exact') return `Exact ${p.exact ?? ''}`;
  if (p.kind === 'prefix') return `PathPrefix ${p.prefix ?? ''}`;
  return `RegularExpression ${p.regex ?? ''}`;
}

/** Header and query names only: a match value may be a shared secret someone routes on. */
function matchText(m: RouteMatch): string {
  const parts = [pathText(m.path)];
  if (m.method) parts.push(m.method);
  for (const h of m.headers) parts.push(`header ${h.name}`);
  for (const q of m.queryParams) parts.push(`query ${q.name}`);
  return parts.join(', ');
}

function routeView(r: Route): RouteView {
  const matches = r.routeMatches.length > 0 ? r.routeMatches.map(matchText) : r.matches.map((p) => pathText(p));
  return {
    name: r.name,
    listeners: [...r.listeners],
    hostnames: [...r.hostnames],
    matches: matches.length > 0 ? matches : ['PathPrefix /'],
    backends: r.backends.map((b) => ({ backend: b.backend, weight: b.weight })),
    policy: Object.keys(r.provenance)
      .sort()
      .map((field) => ({ field, source: r.provenance[field] ?? '' })),
    refusals: r.refusals.map(refusalView),
    unserved: r.unservedBackends.map((u) => ({ reason: u.reason, message: u.message })),
  };
}

/** A URL's scheme and host only: user info, query and even the path can carry credentials (`/mcp/<key>/sse`). */
export function safeUrl(text: string): string {
  try {
    const u = new URL(text);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(not a URL)';
  }
}

function backendSummary(b: Backend): string {
  if (b.kind === 'mcp') return `${b.mcp?.targets.length ?? 0} MCP target(s)`;
  if (b.kind === 'ai') return `${b.ai?.groups.reduce((n, g) => n + g.providers.length, 0) ?? 0} LLM provider(s)`;
  if (b.kind === 'static') return `${b.static?.host ?? ''}:${b.static?.port ?? 0}`;
  if (b.kind === 'a2a') return `A2A ${b.a2a?.host ?? ''}:${b.a2a?.port ?? 0}`;
  if (b.kind === 'dynamicForwardProxy') return 'dynamic forward proxy';
  if (b.kind === 'aws') return 'AWS Bedrock AgentCore';
  return '';
}

export function snapshotView(s: Snapshot): SnapshotView {
  return {
    binds: [...resourcesOf(s, 'bind').values()].map((b) => ({ name: b.name, address: b.address, port: b.port })),
    listeners: [...resourcesOf(s, 'listener').values()].map((l) => ({
      name: l.name,
      bind: l.bind,
      protocol: l.protocol === 'HTTPS' ? 'HTTPS' : 'HTTP',
      hostnames: [...l.hostnames],
      refusals: l.refusals.map(refusalView),
    })),
    routes: [...resourcesOf(s, 'route').values()].map(routeView),
    backends: [...resourcesOf(s, 'backend').values()].map((b) => ({
      name: b.name,
      kind: b.kind ?? '',
      summary: backendSummary(b),
    })),
  };
}

function transportOf(t: McpTarget): string {
  if (t.transport === 'remote') return `${t.remote?.protocol ?? ''} ${safeUrl(t.remote?.url ?? '')}`;
  // A stdio target's arguments may carry a key: the command name only.
  return `stdio ${t.stdio?.cmd ?? ''}`;
}

/**
 * `ejected` holds `pool member` pairs of the outlier detector. An MCP target's pool is each route to its
 * backend, so a target is matched in those pools only (the same target name in another backend is not it).
 */
export function targetsView(s: Snapshot, ejected: ReadonlySet<string>): TargetView[] {
  const out: TargetView[] = [];
  const routes = [...resourcesOf(s, 'route').values()];
  for (const b of resourcesOf(s, 'backend').values()) {
    if (b.kind !== 'mcp') continue;
    const pools = routes.filter((r) => r.backends.some((ref) => ref.backend === b.name)).map((r) => r.name);
    for (const t of b.mcp?.targets ?? []) {
      const ejectedIn = pools.filter((pool) => ejected.has(`${pool} ${t.name}`));
      out.push({
        backend: b.name,
        name: t.name,
        transport: transportOf(t),
        health: ejectedIn.length > 0 ? 'ejected' : 'serving',
        ejectedIn,
      });
    }
  }
  return out;
}

export function llmView(s: Snapshot, ejected: ReadonlySet<string>): LlmView {
  const providers: LlmView['providers'] = [];
  for (const b of resourcesOf(s, 'backend').values()) {
    if (b.kind !== 'ai') continue;
    b.ai?.groups.forEach((g, group) => {
      for (const p of g.providers) {
        // An AI provider's pool is its backend (llm/provider-health.ts).
        const down = ejected.has(`${b.name} ${p.name}`);
        providers.push({
          backend: b.name,
          group,
          name: p.name,
          kind: p.kind,
          host: p.host,
          health: down ? 'ejected' : 'serving',
        });
      }
    });
  }
  const models = [...resourcesOf(s, 'model').values()].map((m) => ({
    name: m.name,
    match: m.match?.kind
      ? `${m.match.kind} ${m.match.kind === 'any' ? '' : String(m.match[m.match.kind] ?? '')}`.trim()
      : '',
    target: m.target ?? '',
    refusals: m.refusals.map(refusalView),
  }));
  return { providers, models };
}
