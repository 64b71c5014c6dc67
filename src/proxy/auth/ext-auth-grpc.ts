// GwPolicy `traffic.extAuth.grpc`: the request asked about over Envoy's ext_authz protocol
// (envoy.service.auth.v3.Authorization/Check, proto/envoy/service/auth/v3/external_auth.proto), and the
// CheckResponse read back into a decision. Behaviour: docs/auth.md "External authorization" (gRPC).
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { MethodDefinition } from '@grpc/grpc-js';
import { celToJson, isCelError, type CelBindings, type CompiledCel } from '../policy/cel/env.js';
import { grpcService, type GrpcTarget } from '../ext/grpc-clients.js';
import { splitTarget } from '../http/route-match.js';
import type { Decision, HeaderMutation } from './ext-auth-cache.js';

export interface GrpcCheckPlan {
  target: GrpcTarget;
  contextExtensions: Record<string, string>;
  requestMetadata: readonly [string, CompiledCel][];
}

/** google.protobuf.Value as proto-loader encodes and decodes it (oneof `kind`). */
type PbValue =
  | { nullValue: 0 }
  | { numberValue: number }
  | { stringValue: string }
  | { boolValue: boolean }
  | { structValue: PbStruct }
  | { listValue: { values: PbValue[] } };
interface PbStruct {
  fields: Record<string, PbValue>;
}

interface HeaderValueOption {
  header?: { key: string; value: string; rawValue?: Buffer } | null;
  append?: { value: boolean } | null;
  appendAction: number;
}

export interface CheckResponse {
  status?: { code: number } | null;
  deniedResponse?: { status?: { code: number } | null; headers: HeaderValueOption[]; body: string } | null;
  okResponse?: {
    headers: HeaderValueOption[];
    headersToRemove: string[];
    responseHeadersToAdd: HeaderValueOption[];
  } | null;
  dynamicMetadata?: PbStruct | null;
}

export function checkMethod(): MethodDefinition<object, CheckResponse> {
  const service = grpcService('envoy/service/auth/v3/external_auth.proto', 'envoy.service.auth.v3.Authorization');
  return service.Check as MethodDefinition<object, CheckResponse>;
}

/** The CheckRequest Envoy's filter would send for `req`: peers, the HTTP request (every header), extensions, metadata. */
export function checkRequest(
  req: IncomingMessage,
  plan: GrpcCheckPlan,
  bindings: CelBindings,
  body: Buffer | undefined,
): object {
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(req.headers))
    if (v !== undefined) headers[name] = Array.isArray(v) ? v.join(',') : v;
  const scheme = (req.socket as Partial<TLSSocket>).encrypted ? 'https' : 'http';
  Object.assign(headers, {
    ':authority': req.headers.host ?? '',
    ':method': req.method ?? 'GET',
    ':path': req.url ?? '/',
    ':scheme': scheme,
  });
  if (body) headers['x-envoy-auth-partial-body'] = 'false';
  const filterMetadata: Record<string, PbStruct> = {};
  for (const [ns, cel] of plan.requestMetadata) {
    const result = cel.evaluate(bindings);
    const v = result instanceof Error || isCelError(result) ? undefined : celToJson(result);
    if (v === undefined) continue;
    const value = toPbValue(v);
    filterMetadata[ns] = 'structValue' in value ? value.structValue : { fields: { value } };
  }
  const now = Date.now();
  const { path } = splitTarget(req.url);
  return {
    attributes: {
      source: peer(req.socket.remoteAddress, req.socket.remotePort),
      destination: peer(req.socket.localAddress, req.socket.localPort),
      request: {
        time: { seconds: String(Math.floor(now / 1000)), nanos: (now % 1000) * 1_000_000 },
        http: {
          id: typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : '',
          method: req.method ?? 'GET',
          headers,
          // As Envoy: the request target with its query; `query` and `fragment` stay empty.
          path: req.url ?? path,
          host: req.headers.host ?? '',
          scheme,
          size: String(body ? body.length : Number(req.headers['content-length'] ?? -1)),
          protocol: `HTTP/${req.httpVersion}`,
          body: body ? body.toString('utf8') : '',
        },
      },
      contextExtensions: plan.contextExtensions,
      metadataContext: { filterMetadata },
    },
  };
}

function peer(address: string | undefined, port: number | undefined): object {
  return { address: { socketAddress: { address: address ?? '', portValue: port ?? 0 } } };
}

/** A denial without a status of its own is a 403, as Envoy's filter answers. */
const defaultDeniedStatus = 403;

/** gRPC status OK allows (with the OkHttpResponse's header mutations); anything else denies with the DeniedHttpResponse. */
export function decisionOf(answer: CheckResponse): Decision {
  const metadata = answer.dynamicMetadata ? fromPbStruct(answer.dynamicMetadata) : undefined;
  if ((answer.status?.code ?? 0) === 0) {
    const ok = answer.okResponse;
    return {
      kind: 'allow',
      headers: {},
      mutations: (ok?.headers ?? []).flatMap(mutationOf),
      remove: (ok?.headersToRemove ?? []).map((h) => h.toLowerCase()),
      responseHeaders: (ok?.responseHeadersToAdd ?? []).flatMap(mutationOf),
      ...(metadata ? { metadata } : {}),
    };
  }
  const denied = answer.deniedResponse;
  const code = denied?.status?.code ?? 0;
  const headers: Record<string, string | string[]> = {};
  for (const m of (denied?.headers ?? []).flatMap(mutationOf)) {
    const had = headers[m.name];
    headers[m.name] = m.action === 'append' && had !== undefined ? [had, m.value].flat() : m.value;
  }
  return {
    kind: 'deny',
    status: code >= 200 && code <= 599 ? code : defaultDeniedStatus,
    headers,
    body: Buffer.from(denied?.body ?? ''),
  };
}

const actions: HeaderMutation['action'][] = ['append', 'addIfAbsent', 'set', 'setIfPresent'];

function mutationOf(o: HeaderValueOption): HeaderMutation[] {
  const h = o.header;
  if (!h?.key) return [];
  const value = h.value !== '' || !h.rawValue?.length ? h.value : h.rawValue.toString('latin1');
  // The deprecated `append` wins when set (Envoy's rule); otherwise append_action decides.
  const action = o.append ? (o.append.value ? 'append' : 'set') : (actions[o.appendAction] ?? 'append');
  return [{ name: h.key.toLowerCase(), value, action }];
}

function toPbValue(v: unknown): PbValue {
  if (v === null || v === undefined) return { nullValue: 0 };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return { numberValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toPbValue) } };
  if (typeof v === 'object') {
    const fields: Record<string, PbValue> = {};
    for (const [k, x] of Object.entries(v)) fields[k] = toPbValue(x);
    return { structValue: { fields } };
  }
  return { stringValue: String(v as string) };
}

function fromPbValue(v: PbValue): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('numberValue' in v) return v.numberValue;
  if ('boolValue' in v) return v.boolValue;
  if ('structValue' in v) return fromPbStruct(v.structValue);
  if ('listValue' in v) return (v.listValue.values ?? []).map(fromPbValue);
  return null;
}

/** A google.protobuf.Struct (not IR: its `fields` member is the Struct's own). */
function fromPbStruct({ fields }: PbStruct): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields ?? {})) out[k] = fromPbValue(v);
  return out;
}
