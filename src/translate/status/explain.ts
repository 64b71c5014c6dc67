// `gw explain route`: the effective merged policy of a route, field by field, with the object that
// set each field and the objects it overrode, plus policies aimed at the route that are not in effect.
import type { IrRefusal } from '../../coverage/effective.js';
import type { BackendRefInput, PolicyFieldsInput, RefusalInput, RouteInput } from '../../ir/types.js';
import type { FieldOrigin } from '../policies/policy-merge.js';
import { snapshots, type TranslationState } from '../state.js';
import type { PolicyObjectStatus } from './policy-status.js';

export interface ExplainedField {
  path: string;
  /** Canonical JSON text of the effective value. */
  value: string;
  provenance: FieldOrigin;
  /** Set when this release refuses the field (or part of it): what is refused and why. */
  refused?: IrRefusal[];
}

export interface ExplainedRoute {
  gateway: string;
  route: string;
  listeners: string[];
  hostnames: string[];
  fields: ExplainedField[];
  /** Backend refs the translator left out (a missing Secret, a backend that does not exist): why. */
  unserved: { reason: string; message: string }[];
  backends: {
    backend: string;
    weight: number;
    fields: ExplainedField[];
    targets: { name: string; fields: ExplainedField[] }[];
    tls?: string;
  }[];
  /** Every refused field that reaches the route (issue 14): its own, its listener's and its edges'. */
  refusals: IrRefusal[];
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

// The IR read here may come from any producer: every member is optional, so absent means empty.
function fieldsOf(p: PolicyFieldsInput | null | undefined, refusals: readonly IrRefusal[] = []): ExplainedField[] {
  const fields = p?.fields ?? {};
  return Object.keys(fields)
    .sort()
    .map((path) => {
      const from = p?.provenance?.[path];
      const provenance = { source: from?.source ?? '', level: from?.level ?? '', overridden: from?.overridden ?? [] };
      const refused = refusals.filter(
        (r) => r.source === provenance.source && refusalCovers(r.field, path, provenance.source),
      );
      return {
        path,
        value: withoutInlineKey(path, fields[path] ?? ''),
        provenance,
        ...(refused.length ? { refused } : {}),
      };
    });
}

function refusalsOf(list: readonly RefusalInput[] | undefined): IrRefusal[] {
  return (list ?? []).map((r) => ({
    field: r.field ?? '',
    source: r.source ?? '',
    reason: r.reason ?? '',
    security: r.security ?? false,
  }));
}

function explainedBackend(b: BackendRefInput): ExplainedRoute['backends'][number] {
  const refusals = refusalsOf(b.refusals);
  const tls = b.tls?.source?.startsWith('BackendTLSPolicy ') ? b.tls : undefined;
  return {
    backend: b.backend ?? '',
    weight: b.weight ?? 0,
    fields: fieldsOf(b.policy, refusals),
    targets: Object.keys(b.targetPolicies ?? {})
      .sort()
      .map((t) => ({ name: t, fields: fieldsOf(b.targetPolicies?.[t], refusals) })),
    // A GwPolicy's backend.tls already shows as a field; a BackendTLSPolicy is not a policy field.
    ...(tls ? { tls: `${tls.source ?? ''} (SNI ${tls.sni ?? ''})` } : {}),
  };
}

/** Whether a refused object path (`spec.traffic.csrf`, `spec.policies.tls`) lies in the merged field `section.field`. */
function refusalCovers(field: string, path: string, source: string): boolean {
  const own =
    source.startsWith('GwBackend ') && path.startsWith('backend.')
      ? `spec.policies.${path.slice('backend.'.length)}`
      : `spec.${path}`;
  return field === own || field.startsWith(`${own}.`) || field.startsWith(`${own}[`);
}

/** An inline `backend.auth.key` is an upstream API key: explain says it is set, never what it is. */
function withoutInlineKey(path: string, text: string): string {
  if (path !== 'backend.auth') return text;
  const auth = JSON.parse(text) as Record<string, unknown>;
  return typeof auth.key === 'string' ? JSON.stringify({ ...auth, key: '<redacted>' }) : text;
}

export function explainRoute(
  state: TranslationState,
  kind: 'HTTPRoute' | 'GRPCRoute',
  namespace: string,
  name: string,
  rule?: string,
): Explanation {
  const prefix = `${kind}/${namespace}/${name}/`;
  const routes: ExplainedRoute[] = [];
  for (const [gateway, snap] of snapshots(state)) {
    for (const res of snap.resources) {
      if (!('route' in res)) continue;
      const r: RouteInput = res.route;
      const routeName = r.name ?? '';
      if (!routeName.startsWith(prefix)) continue;
      const ruleName = routeName.slice(prefix.length).split('@')[0];
      if (rule !== undefined && ruleName !== rule) continue;
      const refusals = refusalsOf(r.refusals);
      routes.push({
        gateway,
        route: routeName,
        listeners: r.listeners ?? [],
        hostnames: r.hostnames ?? [],
        fields: fieldsOf(r.effective, refusals),
        unserved: (r.unservedBackends ?? []).map((u) => ({ reason: u.reason ?? '', message: u.message ?? '' })),
        refusals,
        backends: (r.backends ?? []).map(explainedBackend),
      });
    }
  }
  const notInEffect: Explanation['notInEffect'] = [];
  for (const [key, status] of [...state.statuses].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!key.startsWith('GwPolicy/')) continue;
    // objectStatus (status.ts) builds every GwPolicy status in this map.
    for (const a of (status as PolicyObjectStatus).ancestors) {
      const ref = a.ancestorRef;
      if (ref.kind !== kind || ref.name !== name || ref.namespace !== namespace) continue;
      if (rule !== undefined && ref.sectionName !== undefined && ref.sectionName !== rule) continue;
      for (const c of a.conditions) {
        const bad =
          c.type === 'Accepted' || c.type === 'Attached' || c.type === 'Enforced'
            ? c.status === 'False'
            : c.type === 'Conflicted' && c.status === 'True';
        if (bad)
          notInEffect.push({
            policy: `GwPolicy ${key.slice('GwPolicy/'.length)}`,
            reason: `${c.type}: ${c.reason}`,
            message: c.message,
          });
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
    for (const r of f.refused ?? []) out.push(`${indent}    REFUSED ${refusalLine(r)}`);
  }
  return out;
}

const refusalLine = (r: IrRefusal): string =>
  `${r.field}: ${r.reason}${r.security ? ' [security: the route answers 503 rather than run without it]' : ''}`;

export function renderExplanation(e: Explanation): string {
  const out: string[] = [];
  if (e.routes.length === 0)
    out.push(`${e.subject}: no Gateway of this controller serves it (check its status parents[]).`);
  for (const r of e.routes) {
    out.push(`${r.route} on Gateway ${r.gateway}`);
    out.push(
      `  listeners: ${r.listeners.join(', ')}${r.hostnames.length ? `; hostnames: ${r.hostnames.join(', ')}` : ''}`,
    );
    out.push('  effective policy:');
    // Backend-side fields live on the edges: with every edge left out there are none, and the reason is below.
    if (r.fields.length === 0 && r.backends.length === 0 && r.unserved.length)
      out.push('    (no policy fields: every backend of this route was left out, see below)');
    else out.push(...renderFields(r.fields, '    '));
    for (const u of r.unserved) out.push(`  backend left out (${u.reason}): ${u.message}`);
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
  for (const r of e.routes.filter((x) => x.refusals.length)) {
    out.push(`refused on ${r.route} (accepted by the API, not enforced by this release):`);
    for (const f of r.refusals) out.push(`  REFUSED ${f.source} ${refusalLine(f)}`);
  }
  if (e.notInEffect.length) {
    out.push('policies aimed at this route that are not (fully) in effect:');
    for (const n of e.notInEffect) out.push(`  ${n.policy}: ${n.reason}: ${n.message}`);
  }
  return `${out.join('\n')}\n`;
}
