// `backend.tunnel` and `backend.tcp` of one route → backend edge: the forward proxy its connections go
// through (with the Proxy-Authorization read from a Secret) and its dialer settings. Pure: reads go through
// the context. Messages name the field and the object, never the credential. Behaviour: docs/proxy.md "Tunnels".
import type { BackendInput, BackendRefInput } from '../../ir/types.js';
import { parseDurationMs } from '../../ir/duration.js';
import type { IrRefusal } from '../../coverage/effective.js';
import { readAny, type Ctx } from '../objects/context.js';
import { namespaceOfSource, type EndpointResolver } from './backend-identity.js';
import { decoded } from '../listeners/certificates.js';
import { dataOf } from '../objects/gateway-api.js';
import type { EffectivePolicy, MergedFields } from '../policies/policy-merge.js';

/** Backend kinds whose edge-level settings the proxy's upstream dialer applies (AI providers: backend-ai.ts; aws: AgentCore). */
const DIALLED_KINDS = new Set(['static', 'a2a', 'mcp', 'ai', 'aws']);

type Connection = Pick<BackendRefInput, 'tunnel' | 'tcp' | 'targetTunnels' | 'targetTcp'>;

export type EdgeConnection = { ok: true; settings: Connection; refusals: IrRefusal[] } | { ok: false; message: string };

/** The edge's tunnel and dialer settings (and each MCP target's own), refusals for kinds they do not reach, or why a tunnel cannot be built. */
export function edgeConnection(
  ctx: Ctx,
  irBackend: BackendInput | undefined,
  merged: EffectivePolicy,
  /** Per MCP target / AI provider policies. */
  subMerged: Record<string, EffectivePolicy>,
  /** Resolves a policy's backendRef (`tunnel.backendRef`) for the policy that set it. */
  resolverOf: (m: MergedFields) => EndpointResolver,
): EdgeConnection {
  const refusals: IrRefusal[] = [];
  const settings: Connection = {};
  const kind = irBackend?.kind ?? '';
  // HTTP/1.1 and HTTP/2 edges alike: node:http2 sessions dial through the same dialer (h2-upstream.ts).
  const dialled = DIALLED_KINDS.has(kind);
  for (const field of ['tunnel', 'tcp'] as const) {
    if (!merged.fields[`backend.${field}`] || dialled) continue;
    const source = merged.provenance[`backend.${field}`]?.source ?? '';
    refusals.push({
      field: source.startsWith('GwPolicy ') ? `spec.backend.${field}` : `spec.policies.${field}`,
      source,
      reason: `backend.${field} applies to static, a2a, Service, MCP, AI and AgentCore backends, not to ${kind || 'this'} backends`,
      // A tunnel may be an egress rule: where it does not apply the route fails closed (503), never goes direct.
      security: field === 'tunnel',
    });
  }
  // AI providers carry their own (the edge's unless they set one): backend-ai.ts providerEdge.
  if (!dialled || kind === 'ai') return { ok: true, settings, refusals };
  const own = upstreamConnection(ctx, merged, resolverOf(merged));
  if (!own.ok) return own;
  if (own.tunnel) settings.tunnel = own.tunnel;
  if (own.tcp) settings.tcp = own.tcp;
  if (kind !== 'mcp') return { ok: true, settings, refusals };
  for (const [name, m] of Object.entries(subMerged)) {
    const sub = upstreamConnection(ctx, m, resolverOf(m));
    if (!sub.ok) return sub;
    if (sub.tunnel && m.provenance['backend.tunnel']?.source !== merged.provenance['backend.tunnel']?.source)
      (settings.targetTunnels ??= {})[name] = sub.tunnel;
    if (sub.tcp && m.provenance['backend.tcp']?.source !== merged.provenance['backend.tcp']?.source)
      (settings.targetTcp ??= {})[name] = sub.tcp;
  }
  return { ok: true, settings, refusals };
}

/** `backend.tunnel` and `backend.tcp` of one merged policy (an edge, an MCP target, an AI provider). */
export function upstreamConnection(
  ctx: Ctx,
  merged: MergedFields,
  resolve: EndpointResolver,
): { ok: true; tunnel?: BackendRefInput['tunnel']; tcp?: BackendRefInput['tcp'] } | { ok: false; message: string } {
  const tunnel = tunnelOf(ctx, merged, resolve);
  if (!tunnel.ok) return tunnel;
  const tcp = tcpOf(merged);
  return { ok: true, ...(tunnel.tunnel ? { tunnel: tunnel.tunnel } : {}), ...(tcp ? { tcp } : {}) };
}

function tcpOf(merged: MergedFields): BackendRefInput['tcp'] {
  const tcp = merged.fields['backend.tcp'];
  if (!tcp) return undefined;
  const connectTimeoutMs = tcp.connectTimeout ? parseDurationMs(tcp.connectTimeout) : 0;
  const ka = tcp.keepalive;
  // Any keepalive field turns keepalive on with the schema's idle time unless it sets its own; interval and
  // retries are carried only when set (the platform's otherwise: the schema's defaults apply in the cluster).
  return {
    connectTimeoutMs,
    keepaliveTimeMs: ka ? parseDurationMs(ka.time ?? '180s') : 0,
    ...(ka?.interval ? { keepaliveIntervalMs: parseDurationMs(ka.interval) } : {}),
    ...(ka?.retries ? { keepaliveProbes: ka.retries } : {}),
  };
}

function tunnelOf(
  ctx: Ctx,
  merged: MergedFields,
  resolve: EndpointResolver,
): { ok: true; tunnel?: BackendRefInput['tunnel'] } | { ok: false; message: string } {
  const t = merged.fields['backend.tunnel'];
  if (!t) return { ok: true };
  const source = merged.provenance['backend.tunnel']?.source ?? '';
  const at = (field: string) => `${source ? `${source} ` : ''}backend.tunnel.${field}`;
  const target = proxyUrl(t, resolve);
  if ('problem' in target) return { ok: false, message: `${at('backendRef')}: ${target.problem}` };
  const url = new URL(target.url);
  const tls = url.protocol === 'https:';
  const tunnel: NonNullable<BackendRefInput['tunnel']> = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port) || (tls ? 443 : 80),
    tls,
    connectAlways: t.mode === 'Connect',
    proxyAuthorization: '',
    source,
  };
  if (t.secretRef) {
    const key = `${namespaceOfSource(source)}/${t.secretRef.name}`;
    const secret = readAny(ctx, 'Secret', key);
    if (!secret) return { ok: false, message: `${at('secretRef')}: Secret ${key} does not exist` };
    const data = dataOf(secret);
    const user = decoded(data.username);
    const password = decoded(data.password) ?? '';
    if (!user || user.includes(':'))
      return { ok: false, message: `${at('secretRef')}: Secret ${key} needs a username without ':'` };
    tunnel.proxyAuthorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  return { ok: true, tunnel };
}

/** The forward proxy's URL: `url`, or the Service / static GwBackend `backendRef` names (plain HTTP to it). */
function proxyUrl(
  t: NonNullable<MergedFields['fields']['backend.tunnel']>,
  resolve: EndpointResolver,
): { url: string } | { problem: string } {
  if (t.url) return { url: t.url };
  const r = resolve('backend.tunnel', t.backendRef ?? { name: '' });
  if ('problem' in r) return { problem: r.problem };
  if (/:0$/.test(r.url)) return { problem: 'a Service backendRef needs a port' };
  // The IR's tunnel TLS is the system roots' only: a GwBackend's own TLS settings cannot be honoured.
  if (r.tls)
    return { problem: 'a forward proxy reached with its own policies.tls is not supported; use url: https://…' };
  return { url: r.url };
}
