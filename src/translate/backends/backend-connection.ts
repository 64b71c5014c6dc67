// `backend.tunnel` and `backend.tcp` of one route → backend edge: the forward proxy its connections go
// through (with the Proxy-Authorization read from a Secret) and its dialer settings. Pure: reads go through
// the context. Messages name the field and the object, never the credential. Behaviour: docs/proxy.md "Tunnels".
import type { BackendInput, BackendRefInput } from '../../ir/types.js';
import { parseDurationMs } from '../../ir/duration.js';
import type { IrRefusal } from '../../coverage/effective.js';
import { readAny, type Ctx } from '../objects/context.js';
import { namespaceOfSource } from './backend-identity.js';
import { decoded } from '../listeners/certificates.js';
import { dataOf } from '../objects/gateway-api.js';
import type { EffectivePolicy } from '../policies/policy-merge.js';

/** Backend kinds whose connections the HTTP forwarder dials: the only ones a tunnel or tcp setting reaches. */
const DIALLED_KINDS = new Set(['static', 'a2a']);

export type EdgeConnection =
  | { ok: true; settings: Pick<BackendRefInput, 'tunnel' | 'tcp'>; refusals: IrRefusal[] }
  | { ok: false; message: string };

/** The edge's tunnel and dialer settings, refusals for kinds they do not reach, or why the tunnel cannot be built. */
export function edgeConnection(
  ctx: Ctx,
  irBackend: BackendInput | undefined,
  merged: EffectivePolicy,
  /** Per MCP target / AI provider policies: none of these settings reach a target or provider. */
  subMerged: Record<string, EffectivePolicy>,
  /** The edge speaks HTTP/2 upstream (node:http2, which dials on its own). */
  h2: boolean,
): EdgeConnection {
  const refusals: IrRefusal[] = [];
  const settings: Pick<BackendRefInput, 'tunnel' | 'tcp'> = {};
  const dialled = DIALLED_KINDS.has(irBackend?.kind ?? '') && !h2;
  const what = h2 ? 'HTTP/2' : (irBackend?.kind ?? 'this');
  const refuse = (m: EffectivePolicy, field: 'tunnel' | 'tcp', reason: string): void => {
    const source = m.provenance[`backend.${field}`]?.source ?? '';
    refusals.push({
      field: source.startsWith('GwPolicy ') ? `spec.backend.${field}` : `spec.policies.${field}`,
      source,
      reason,
      // A tunnel may be an egress rule: where it does not apply the route fails closed (503), never goes direct.
      security: field === 'tunnel',
    });
  };
  for (const field of ['tunnel', 'tcp'] as const) {
    if (merged.fields[`backend.${field}`] && !dialled)
      refuse(
        merged,
        field,
        `backend.${field} applies only to HTTP/1.1 (static, a2a, Service) backends, not to ${what} backends`,
      );
    const edgeSource = merged.provenance[`backend.${field}`]?.source;
    for (const [name, m] of Object.entries(subMerged))
      if (m.fields[`backend.${field}`] && m.provenance[`backend.${field}`]?.source !== edgeSource)
        refuse(m, field, `backend.${field} is not applied per MCP target or AI provider (${name}) by this proxy`);
  }
  // Sending around the proxy a tunnel names could break an egress rule: such an edge is left out instead.
  if (h2 && merged.fields['backend.tunnel'])
    return { ok: false, message: 'backend.tunnel: tunnels to HTTP/2 backends are not supported; use HTTP1' };
  if (!dialled) return { ok: true, settings, refusals };
  const tcp = tcpOf(merged);
  if (tcp) settings.tcp = tcp;
  const tunnel = tunnelOf(ctx, merged);
  if (!tunnel.ok) return tunnel;
  if (tunnel.tunnel) settings.tunnel = tunnel.tunnel;
  return { ok: true, settings, refusals };
}

function tcpOf(merged: EffectivePolicy): BackendRefInput['tcp'] {
  const tcp = merged.fields['backend.tcp'];
  if (!tcp) return undefined;
  const connectTimeoutMs = tcp.connectTimeout ? parseDurationMs(tcp.connectTimeout) : 0;
  // Any keepalive field turns keepalive on with the schema's idle time unless it sets its own.
  const keepaliveTimeMs = tcp.keepalive ? parseDurationMs(tcp.keepalive.time ?? '180s') : 0;
  return { connectTimeoutMs, keepaliveTimeMs };
}

function tunnelOf(
  ctx: Ctx,
  merged: EffectivePolicy,
): { ok: true; tunnel?: BackendRefInput['tunnel'] } | { ok: false; message: string } {
  const t = merged.fields['backend.tunnel'];
  if (!t) return { ok: true };
  const source = merged.provenance['backend.tunnel']?.source ?? '';
  const at = (field: string) => `${source ? `${source} ` : ''}backend.tunnel.${field}`;
  if (!t.url)
    return { ok: false, message: `${at('backendRef')}: a tunnel through a backendRef is not supported; set url` };
  const url = new URL(t.url);
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
