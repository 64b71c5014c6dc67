// Between Node's header objects and ext_proc's messages: headers as a HeaderMap, a processor's HeaderMutation
// applied to headers the proxy owns, google.protobuf.Struct in both directions, an ImmediateResponse sent.
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { HeaderMap, HeaderMutation, ImmediateResponse, StructValue, WireHeader } from './ext-proc-client.js';
import { statusNumber } from './ext-proc-client.js';

type Headers = IncomingHttpHeaders | OutgoingHttpHeaders;

/**
 * Names a processor's mutation never touches: the route was chosen and the upstream addressed from them
 * (what is matched is what is forwarded), and the proxy alone frames the message. Envoy's default
 * mutation rules ignore routing headers the same way.
 */
const fixed = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'proxy-connection',
]);

const mutable = (name: string): boolean => name !== '' && !name.startsWith(':') && !fixed.has(name);

/** Envoy's HeaderMap: pseudo-headers first, then each value of each header, values as raw bytes (as Envoy sends them). */
export function headerMapOf(headers: Headers, pseudo: Record<string, string> = {}): HeaderMap {
  const out: WireHeader[] = Object.entries(pseudo).map(([key, v]) => ({ key, rawValue: Buffer.from(v) }));
  for (const [key, v] of Object.entries(headers)) {
    // Envoy carries the host as :authority only.
    if (v === undefined || (key === 'host' && ':authority' in pseudo)) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.push({ key, rawValue: Buffer.from(String(one)) });
  }
  return { headers: out };
}

const valueOf = (h: WireHeader): string =>
  h.rawValue && h.rawValue.length > 0 ? h.rawValue.toString('latin1') : (h.value ?? '');

/** The plain form of a HeaderMap (trailers a processor returned): lower-case names, repeated names joined as a list. */
export function headersOfMap(m: HeaderMap | null | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const h of m?.headers ?? []) {
    const name = h.key.toLowerCase();
    if (!mutable(name)) continue;
    const prev = out[name];
    out[name] = prev === undefined ? valueOf(h) : [...(Array.isArray(prev) ? prev : [prev]), valueOf(h)];
  }
  return out;
}

/**
 * Applies a processor's mutation to `headers` in place: removals, then each set with its append action
 * (Envoy's order). A value with CR, LF or NUL, and any name in `fixed` or starting with `:`, is skipped.
 */
export function applyMutation(headers: Headers, m: HeaderMutation | null | undefined): void {
  if (!m) return;
  for (const raw of m.removeHeaders) {
    const name = raw.toLowerCase();
    if (mutable(name)) delete headers[name];
  }
  for (const opt of m.setHeaders) {
    const h = opt.header;
    if (!h) continue;
    const name = h.key.toLowerCase();
    const value = valueOf(h);
    if (!mutable(name) || /[\r\n\0]/.test(value) || (value === '' && !opt.keepEmptyValue)) continue;
    const prev = headers[name];
    // The deprecated `append` (true by default in Envoy's API) decides when set; otherwise append_action.
    const action = opt.append
      ? opt.append.value
        ? 'APPEND_IF_EXISTS_OR_ADD'
        : 'OVERWRITE_IF_EXISTS_OR_ADD'
      : opt.appendAction;
    if (action === 'ADD_IF_ABSENT' && prev !== undefined) continue;
    if (action === 'OVERWRITE_IF_EXISTS' && prev === undefined) continue;
    if ((action ?? 'APPEND_IF_EXISTS_OR_ADD') === 'APPEND_IF_EXISTS_OR_ADD' && prev !== undefined)
      headers[name] = [...(Array.isArray(prev) ? prev.map(String) : [String(prev)]), value];
    else headers[name] = value;
  }
}

/** A JSON-like value as google.protobuf.Value in proto-loader's object shape. */
function toValue(v: unknown): Record<string, unknown> {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'bigint') return { numberValue: Number(v) };
  if (typeof v === 'string') return { stringValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toValue) } };
  if (typeof v === 'object') return { structValue: toStruct(v as Record<string, unknown>) };
  return { stringValue: String(v) };
}

export function toStruct(o: Record<string, unknown>): StructValue {
  return { fields: Object.fromEntries(Object.entries(o).map(([k, v]) => [k, toValue(v)])) };
}

function fromValue(v: unknown): unknown {
  const val = (v ?? {}) as Record<string, unknown> & { kind?: string };
  switch (val.kind) {
    case 'boolValue':
    case 'numberValue':
    case 'stringValue':
      return val[val.kind];
    case 'structValue':
      return fromStruct(val.structValue as StructValue);
    case 'listValue':
      return ((val.listValue as { values?: unknown[] } | undefined)?.values ?? []).map(fromValue);
    default:
      return null;
  }
}

/** google.protobuf.Struct as proto-loader decodes it → a plain object. */
export function fromStruct(s: StructValue | null | undefined): Record<string, unknown> {
  const { fields = {} } = s ?? {};
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fromValue(v)]));
}

/**
 * Sends a processor's ImmediateResponse to the client. Envoy requires its status; one outside 200-599 (or
 * missing) makes the answer unusable, and the caller treats it as a failed call: false.
 */
export function sendImmediate(res: ServerResponse, imm: ImmediateResponse): boolean {
  const status = statusNumber(imm.status?.code);
  if (status < 200 || status > 599) return false;
  const headers: OutgoingHttpHeaders = {};
  applyMutation(headers, imm.headers);
  if (imm.grpcStatus) headers['grpc-status'] = String(imm.grpcStatus.status);
  headers['content-length'] = String(imm.body.length);
  if (res.headersSent) return false;
  res.writeHead(status, headers).end(imm.body);
  return true;
}
