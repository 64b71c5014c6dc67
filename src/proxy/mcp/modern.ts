// The MCP 2026-07-28 wire (the stateless revision), both ways through the proxy: which client requests
// are of that generation, the routing headers checked against the body, the per-request `_meta`
// envelope sent to targets of that generation, and the results rewritten for each kind of client
// (resultType, caching controls, serverInfo, the multi round-trip `requestState`). Pure, so the rules
// are tested without servers; how the generations meet per hop: docs/proxy.md "MCP 2026-07-28".
import type { IncomingHttpHeaders } from 'node:http';
import {
  type JsonRpcError,
  type JsonRpcMessage,
  type JsonRpcRequest,
  InvalidParams,
  MethodNotFound,
  rpcError,
} from './jsonrpc.js';

export const modernVersion = '2026-07-28';
export const versionKey = 'io.modelcontextprotocol/protocolVersion';
export const capabilitiesKey = 'io.modelcontextprotocol/clientCapabilities';
export const clientInfoKey = 'io.modelcontextprotocol/clientInfo';
export const serverInfoKey = 'io.modelcontextprotocol/serverInfo';
export const subscriptionKey = 'io.modelcontextprotocol/subscriptionId';
/** The spec's HeaderMismatch: routing headers that disagree with the body (HTTP 400). */
export const HeaderMismatch = -32020;
/** The spec's UnsupportedProtocolVersion (HTTP 400), its data naming the versions offered. */
export const UnsupportedProtocolVersion = -32022;
/** The spec's MissingRequiredClientCapability (HTTP 400): the request needs a capability the client did not declare. */
export const MissingClientCapability = -32021;

/** What a 2026-07-28 request says about its client, in place of initialize. */
export interface Envelope {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string };
}

/** Results the revision lets a client cache (they carry `ttlMs` and `cacheScope`). */
const cacheable = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'server/discover',
]);
/** Results that may ask for input (multi round-trip requests). */
const mayAskInput = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** The body field the `Mcp-Name` header mirrors, by method. */
const nameSource: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** The version a message's `_meta` claims, if any. */
export function claimedVersion(m: JsonRpcMessage): string | undefined {
  const meta = metaOf(m);
  const v = meta?.[versionKey];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Whether a POST without a session is of the 2026 generation: one message (the revision has no batches)
 * whose `_meta` claims a version from 2026-07-28 on; without a claim, a `server/discover` or a message whose
 * `MCP-Protocol-Version` header names such a version (a malformed 2026 request, refused as one). An
 * `initialize` is 2026 only by its claim: a 2025 client's carries none, whatever its headers say.
 */
export function isModernPost(messages: readonly JsonRpcMessage[], batch: boolean, header?: string): boolean {
  const m = messages[0];
  if (batch || messages.length !== 1 || !m || !('method' in m)) return false;
  const v = claimedVersion(m);
  if (v !== undefined) return v >= modernVersion;
  if (m.method === 'initialize') return false;
  return m.method === 'server/discover' || (header !== undefined && header.trim() >= modernVersion);
}

/** Methods of the 2025 revisions that 2026-07-28 removed: a 2026 request for one is an unknown method. */
export const removedMethods: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/**
 * The HTTP status of an error answer to a 2026 client: 404 for an unknown method, 400 for the revision's
 * own protocol errors (header mismatch, missing client capability, unsupported version); anything else
 * travels as a JSON-RPC error in a 200.
 */
export function modernStatus(m: JsonRpcMessage | undefined): number {
  if (!m || !('error' in m)) return 200;
  const code = m.error.code;
  if (code === MethodNotFound) return 404;
  return code === HeaderMismatch || code === MissingClientCapability || code === UnsupportedProtocolVersion ? 400 : 200;
}

/**
 * The request's envelope, or the error answering a malformed one (the spec's invalid params, HTTP 400):
 * the protocol version and the client capabilities are required, `clientInfo` is not.
 */
export function envelopeOf(req: JsonRpcRequest): Envelope | JsonRpcError {
  const meta = metaOf(req);
  if (!meta) return rpcError(req.id, InvalidParams, 'Invalid params: _meta is required');
  const version = meta[versionKey];
  const caps = meta[capabilitiesKey];
  const info = meta[clientInfoKey];
  if (typeof version !== 'string')
    return rpcError(req.id, InvalidParams, `Invalid params: _meta.${versionKey} is required (a string)`);
  if (!isObject(caps))
    return rpcError(req.id, InvalidParams, `Invalid params: _meta.${capabilitiesKey} is required (an object)`);
  return {
    protocolVersion: version,
    clientCapabilities: caps,
    clientInfo:
      isObject(info) && typeof info.name === 'string'
        ? { name: info.name, version: String(info.version ?? '0') }
        : { name: 'gw-client', version: '0' },
  };
}

/** A 2026 request refused before any target is reached: the HTTP status and the JSON-RPC error answer. */
export interface Refusal {
  status: number;
  answer: JsonRpcError;
}

/**
 * A 2026 request's envelope, or why it is refused, checked in this order: the routing headers against the
 * claimed version and the body (HeaderMismatch), the claimed version against those the proxy speaks
 * (UnsupportedProtocolVersion, naming `supported`), the envelope's required fields (invalid params; a
 * request claiming no version fails here), then the methods the revision removed (method not found, 404).
 */
export function admitModern(
  req: JsonRpcRequest,
  headers: IncomingHttpHeaders,
  supported: readonly string[],
): Envelope | Refusal {
  const claimed = claimedVersion(req);
  const mismatch = claimed === undefined ? undefined : headerMismatch(req, headers, claimed);
  if (mismatch !== undefined)
    return { status: 400, answer: rpcError(req.id, HeaderMismatch, `Header mismatch: ${mismatch}`) };
  if (claimed !== undefined && claimed !== modernVersion) {
    const data = { supported, requested: claimed };
    return {
      status: 400,
      answer: rpcError(req.id, UnsupportedProtocolVersion, `Unsupported protocol version: ${claimed}`, data),
    };
  }
  const envelope = envelopeOf(req);
  if ('error' in envelope) return { status: 400, answer: envelope };
  if (removedMethods.has(req.method))
    return {
      status: 404,
      answer: rpcError(req.id, MethodNotFound, `Method not found: ${req.method} (not in ${modernVersion})`),
    };
  return envelope;
}

/**
 * The routing headers checked against the body: `MCP-Protocol-Version` and `Mcp-Method` on every request,
 * `Mcp-Name` where the method names a tool, prompt or resource. Any disagreement is HeaderMismatch; the
 * proxy routes and authorizes by the body it checked them against.
 */
export function headerMismatch(req: JsonRpcRequest, headers: IncomingHttpHeaders, version: string): string | undefined {
  const pv = single(headers['mcp-protocol-version']);
  if (pv === undefined) return 'the MCP-Protocol-Version header is required';
  if (pv !== version) return `the MCP-Protocol-Version header names ${pv} but the body names ${version}`;
  const method = single(headers['mcp-method']);
  if (method === undefined) return 'the Mcp-Method header is required';
  if (method !== req.method) return `the Mcp-Method header names ${method} but the body names ${req.method}`;
  const expected = nameOf(req.method, req.params);
  if (expected === undefined) return undefined;
  const raw = single(headers['mcp-name']);
  if (raw === undefined) return `the Mcp-Name header is required for ${req.method}`;
  const name = decodeHeaderValue(raw);
  if (name === undefined) return 'the Mcp-Name header carries an invalid base64 value';
  if (name !== expected)
    return `the Mcp-Name header names ${JSON.stringify(name)} but the body names ${JSON.stringify(expected)}`;
  return undefined;
}

/** The value `Mcp-Name` mirrors for a method, if the method has one. */
export function nameOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  const field = nameSource[method];
  const v = field ? params?.[field] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** The routing headers of one call to a 2026 target. */
export function routingHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const name = nameOf(method, params);
  return { 'mcp-method': method, ...(name !== undefined ? { 'mcp-name': encodeHeaderValue(name) } : {}) };
}

const b64Prefix = '=?base64?';
const b64Suffix = '?=';

/** A header value as sent: plain visible ASCII as is, anything else in the spec's base64 form. */
export function encodeHeaderValue(s: string): string {
  const plain =
    s.length > 0 && s === s.trim() && !(s.startsWith(b64Prefix) && s.endsWith(b64Suffix)) && /^[\t\x20-\x7e]*$/.test(s);
  return plain ? s : `${b64Prefix}${Buffer.from(s, 'utf8').toString('base64')}${b64Suffix}`;
}

export function decodeHeaderValue(raw: string): string | undefined {
  const v = raw.trim();
  if (!(v.startsWith(b64Prefix) && v.endsWith(b64Suffix))) return v;
  const body = v.slice(b64Prefix.length, v.length - b64Suffix.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return undefined;
  return Buffer.from(body, 'base64').toString('utf8');
}

/** Params with the envelope for a 2026 target; the caller's own `_meta` keys (progressToken) kept. */
export function withEnvelope(params: Record<string, unknown>, env: Envelope): Record<string, unknown> {
  return {
    ...params,
    _meta: {
      ...(isObject(params._meta) ? params._meta : {}),
      [versionKey]: modernVersion,
      [capabilitiesKey]: env.clientCapabilities,
      [clientInfoKey]: env.clientInfo,
    },
  };
}

/** Params for a 2025 target: the envelope's keys removed (that target learnt them at initialize). */
export function withoutEnvelope(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta;
  if (!isObject(meta) || !(versionKey in meta || capabilitiesKey in meta || clientInfoKey in meta)) return params;
  const { [versionKey]: _v, [capabilitiesKey]: _c, [clientInfoKey]: _i, ...rest } = meta;
  const { _meta: _m, ...out } = params;
  return Object.keys(rest).length > 0 ? { ...out, _meta: rest } : out;
}

/** A 2026 client's capabilities as a 2025 target learns them: none of the requests it cannot be sent. */
export function withoutServerRequests<C extends object>(caps: C): C {
  const { sampling: _s, elicitation: _e, roots: _r, ...rest } = caps as Record<string, unknown>;
  return rest as C;
}

/**
 * A result as a 2026 client gets it through the proxy: `resultType` present (targets of 2025 send none),
 * cacheable results never marked cacheable (`ttlMs` 0, private: the proxy merges, filters and authorizes
 * per caller, so no result is safe to reuse for another), the proxy named as the server.
 */
export function toModernResult(
  method: string,
  result: Record<string, unknown>,
  serverInfo: Record<string, unknown>,
): Record<string, unknown> {
  const resultType = typeof result.resultType === 'string' ? result.resultType : 'complete';
  const out: Record<string, unknown> = {
    ...result,
    resultType: resultType !== 'complete' && !mayAskInput.has(method) ? 'complete' : resultType,
    _meta: { ...(isObject(result._meta) ? result._meta : {}), [serverInfoKey]: serverInfo },
  };
  if (cacheable.has(method) && out.resultType === 'complete') {
    out.ttlMs = 0;
    out.cacheScope = 'private';
  } else {
    delete out.ttlMs;
    delete out.cacheScope;
  }
  return out;
}

/** A result as a 2025 client gets it: the 2026 fields it has no words for removed. */
export function toLegacyResult(result: Record<string, unknown>): Record<string, unknown> {
  if (!('resultType' in result || 'ttlMs' in result || 'cacheScope' in result)) return result;
  const { resultType: _r, ttlMs: _t, cacheScope: _c, ...rest } = result;
  return rest;
}

export function isInputRequired(result: Record<string, unknown>): boolean {
  return result.resultType === 'input_required';
}

const statePrefix = 'gw1.';

/**
 * The continuation state a target returned, as the client holds it: the target's name travels with it,
 * so a retry reaches the target that asked on any replica, and a state presented to another is refused.
 */
export function wrapRequestState(target: string, state: string): string {
  return `${statePrefix}${Buffer.from(target, 'utf8').toString('base64url')}.${state}`;
}

/** The target and its own state from a wrapped state; undefined for anything the proxy did not hand out. */
export function unwrapRequestState(wrapped: string): { target: string; state: string } | undefined {
  if (!wrapped.startsWith(statePrefix)) return undefined;
  const dot = wrapped.indexOf('.', statePrefix.length);
  if (dot < 0) return undefined;
  const target = Buffer.from(wrapped.slice(statePrefix.length, dot), 'base64url').toString('utf8');
  return target === '' ? undefined : { target, state: wrapped.slice(dot + 1) };
}

/**
 * The versions a client may speak through the proxy: the proxy's own, less any that some target cannot be
 * reached with. The proxy bridges every 2025 version to every target and 2026-07-28 to every 2025 target
 * (a target session re-created per request), so only a 2026 target that leaves a 2026 version out removes it.
 */
export function offeredVersions(own: readonly string[], modernTargets: readonly (readonly string[])[]): string[] {
  return own.filter((v) => v < modernVersion || modernTargets.every((t) => t.includes(v)));
}

/** Extensions (and experimental capabilities) of several targets, combined: a key any target offers is offered. */
export function combineKeyed(maps: readonly unknown[]): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const m of maps) {
    if (!isObject(m)) continue;
    for (const [k, v] of Object.entries(m)) {
      out ??= {};
      out[k] = isObject(out[k]) && isObject(v) ? { ...out[k], ...v } : (out[k] ?? v);
    }
  }
  return out;
}

function metaOf(m: JsonRpcMessage): Record<string, unknown> | undefined {
  if (!('method' in m)) return undefined;
  const meta = m.params?._meta;
  return isObject(meta) ? meta : undefined;
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v?.trim();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
