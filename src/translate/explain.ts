// `gw explain route`: the effective merged policy of a route, field by field, with the object that
// set each field and the objects it overrode, plus policies aimed at the route that are not in effect.
import type { IrFieldProvenance, IrPolicyFields, IrRoute } from './ir.js';
import { rec, recs, str } from './read.js';
import { snapshots, type TranslationState } from './state.js';

export interface ExplainedField {
  path: string;
  /** Canonical JSON text of the effective value. */
  value: string;
  provenance: IrFieldProvenance;
}

export interface ExplainedRoute {
  gateway: string;
  route: string;
  listeners: string[];
  hostnames: string[];
  fields: ExplainedField[];
  backends: { backend: string; weight: number; fields: ExplainedField[]; targets: { name: string; fields: ExplainedField[] }[]; tls?: string }[];
}

export interface Explanation {
  /** `HTTPRoute ns/name` or with `rule`. */
  subject: string;
  routes: ExplainedRoute[];
  /** Policies that target the route but are not (fully) in effect, with the reason from their status. */
  notInEffect: { policy: string; reason: string; message: string }[];
}

/** Parses `ns/name[/rule]` (namespace defaults to `default` when only a name is given). */
export function parseRouteArg(arg: string): { namespace: string; name: string; rule?: string } | undefined {
  const parts = arg.split('/');
  if (parts.some((p) => p === '') || parts.length > 3) return undefined;
  if (parts.length === 1) return { namespace: 'default', name: parts[0] as string };
  const [namespace, name, rule] = parts as [string, string, string | undefined];
  return rule === undefined ? { namespace, name } : { namespace, name, rule };
}

function fieldsOf(p: IrPolicyFields | undefined): ExplainedField[] {
  if (!p) return [];
  return Object.keys(p.fields).sort().map((path) => ({ path, value: withoutInlineKey(path, p.fields[path] as string), provenance: p.provenance[path] as IrFieldProvenance }));
}

/** An inline `backend.auth.key` is an upstream API key: explain says it is set, never what it is. */
function withoutInlineKey(path: string, text: string): string {
  if (path !== 'backend.auth') return text;
  const auth = JSON.parse(text) as Record<string, unknown>;
  return typeof auth.key === 'string' ? JSON.stringify({ ...auth, key: '<redacted>' }) : text;
}

export function explainRoute(state: TranslationState, kind: 'HTTPRoute' | 'GRPCRoute', namespace: string, name: string, rule?: string): Explanation {
  const prefix = `${kind}/${namespace}/${name}/`;
  const routes: ExplainedRoute[] = [];
  for (const [gateway, snap] of snapshots(state)) {
    for (const res of snap.resources) {
      if (!('route' in res)) continue;
      const r: IrRoute = res.route;
      if (!r.name.startsWith(prefix)) continue;
      const ruleName = r.name.slice(prefix.length).split('@')[0];
      if (rule !== undefined && ruleName !== rule) continue;
      routes.push({
        gateway, route: r.name, listeners: r.listeners, hostnames: r.hostnames, fields: fieldsOf(r.effective),
        backends: r.backends.map((b) => ({
          backend: b.backend, weight: b.weight, fields: fieldsOf(b.policy),
          targets: Object.keys(b.targetPolicies ?? {}).sort().map((t) => ({ name: t, fields: fieldsOf(b.targetPolicies?.[t]) })),
          // A GwPolicy's backend.tls already shows as a field; a BackendTLSPolicy is not a policy field.
          ...(b.tls?.source.startsWith('BackendTLSPolicy ') ? { tls: `${b.tls.source} (SNI ${b.tls.sni})` } : {}),
        })),
      });
    }
  }
  const notInEffect: Explanation['notInEffect'] = [];
  for (const [key, status] of [...state.statuses].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!key.startsWith('GwPolicy/')) continue;
    for (const a of recs(rec(status)?.ancestors)) {
      const ref = rec(a.ancestorRef) ?? {};
      if (str(ref.kind) !== kind || str(ref.name) !== name || str(ref.namespace) !== namespace) continue;
      if (rule !== undefined && ref.sectionName !== undefined && ref.sectionName !== rule) continue;
      for (const c of recs(a.conditions)) {
        const bad = (c.type === 'Accepted' || c.type === 'Attached') ? c.status === 'False' : c.type === 'Conflicted' && c.status === 'True';
        if (bad) notInEffect.push({ policy: `GwPolicy ${key.slice('GwPolicy/'.length)}`, reason: `${str(c.type) ?? ''}: ${str(c.reason) ?? ''}`, message: str(c.message) ?? '' });
      }
    }
  }
  return { subject: `${kind} ${namespace}/${name}${rule !== undefined ? ` rule ${rule}` : ''}`, routes, notInEffect };
}

function renderFields(fields: ExplainedField[], indent: string): string[] {
  if (fields.length === 0) return [`${indent}(no policy fields)`];
  const out: string[] = [];
  for (const f of fields) {
    out.push(`${indent}${f.path} = ${f.value}`);
    out.push(`${indent}    set by ${f.provenance.source} (level ${f.provenance.level})`);
    if (f.provenance.overridden.length) out.push(`${indent}    overrides ${f.provenance.overridden.join(', ')}`);
  }
  return out;
}

export function renderExplanation(e: Explanation): string {
  const out: string[] = [];
  if (e.routes.length === 0) out.push(`${e.subject}: no Gateway of this controller serves it (check its status parents[]).`);
  for (const r of e.routes) {
    out.push(`${r.route} on Gateway ${r.gateway}`);
    out.push(`  listeners: ${r.listeners.join(', ')}${r.hostnames.length ? `; hostnames: ${r.hostnames.join(', ')}` : ''}`);
    out.push('  effective policy:');
    out.push(...renderFields(r.fields, '    '));
    for (const b of r.backends) {
      out.push(`  backend ${b.backend} (weight ${b.weight}):`);
      out.push(...renderFields(b.fields, '    '));
      if (b.tls) out.push(`    upstream TLS set by ${b.tls}`);
      for (const t of b.targets) {
        out.push(`    target ${t.name}:`);
        out.push(...renderFields(t.fields, '      '));
      }
    }
  }
  if (e.notInEffect.length) {
    out.push('policies aimed at this route that are not (fully) in effect:');
    for (const n of e.notInEffect) out.push(`  ${n.policy}: ${n.reason}: ${n.message}`);
  }
  return `${out.join('\n')}\n`;
}
