// The client-facing MCP streamable HTTP endpoint: POST (messages), GET (server-to-client stream),
// DELETE (end session). Status codes follow the MCP transport specification.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpBackend } from '../ir/types.js';
import type { RouteSecurity } from './hooks.js';
import { sendError, sendJson } from './http-error.js';
import {
  type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse,
  InvalidRequest, ParseError, classify, isNotification, isRequest, rpcError,
} from './jsonrpc.js';
import { McpSession, supportedVersions, type CallContext, type Sink } from './session.js';
import type { SessionRegistry } from './sessions.js';

export interface McpRoute {
  name: string;
  backend: McpBackend;
  security: RouteSecurity;
  maxRequestBytes: number;
}

export interface EndpointContext {
  sessions: SessionRegistry;
  serverInfo: { name: string; title: string; version: string };
  onMcpMethod(method: string): void;
  onTargetFailure(target: string, phase: string): void;
}

const sessionHeader = 'mcp-session-id';

export async function handleMcp(
  req: IncomingMessage, res: ServerResponse, route: McpRoute, claims: Record<string, unknown> | null, ctx: EndpointContext,
): Promise<void> {
  if (req.method === 'POST') return handlePost(req, res, route, claims, ctx);
  if (req.method === 'GET') return handleGet(req, res, ctx);
  if (req.method === 'DELETE') {
    const session = findSession(req, res, ctx);
    if (!session) return;
    await ctx.sessions.end(session.id);
    res.writeHead(200).end();
    return;
  }
  sendError(res, 405, 'method_not_allowed', `method ${req.method ?? ''} is not allowed on the MCP endpoint`, { allow: 'GET, POST, DELETE' });
}

/** Media types an Accept header admits, parsed once per distinct header (clients send the same one every call). */
const acceptCache = new Map<string, { json: boolean; sse: boolean }>();

function acceptance(header: string): { json: boolean; sse: boolean } {
  let a = acceptCache.get(header);
  if (a) return a;
  const types = header.split(',').map((part) => part.split(';')[0]?.trim().toLowerCase());
  const admits = (type: string): boolean => types.some((t) => t === type || t === '*/*' || t === `${type.split('/')[0]}/*`);
  a = { json: admits('application/json'), sse: admits('text/event-stream') };
  if (acceptCache.size >= 256) acceptCache.clear(); // bounded: a client cannot grow it without limit
  acceptCache.set(header, a);
  return a;
}

function findSession(req: IncomingMessage, res: ServerResponse, ctx: EndpointContext): McpSession | undefined {
  const id = req.headers[sessionHeader];
  if (typeof id !== 'string' || id === '') {
    sendError(res, 400, 'bad_request', 'the mcp-session-id header is required after initialize');
    return undefined;
  }
  const session = ctx.sessions.get(id);
  if (!session) {
    sendError(res, 404, 'not_found', 'the session does not exist or has ended; initialize a new one');
    return undefined;
  }
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !supportedVersions.includes(version)) {
    sendError(res, 400, 'bad_request', `unsupported mcp-protocol-version ${version}; supported: ${supportedVersions.join(', ')}`);
    return undefined;
  }
  return session;
}

/** The body in one buffer; listeners instead of an async iterator, which cost a promise per chunk. */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) return Promise.resolve(tooLarge(req, res, limit));
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData).off('end', onEnd);
        resolve(tooLarge(req, res, limit));
        return;
      }
      if (first === undefined) first = chunk;
      else (chunks ??= [first]).push(chunk);
    };
    const onEnd = (): void => resolve(chunks ? Buffer.concat(chunks, size) : (first ?? Buffer.alloc(0)));
    req.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

function tooLarge(req: IncomingMessage, res: ServerResponse, limit: number): undefined {
  sendError(res, 413, 'payload_too_large', `the request body exceeds ${limit} bytes`, { connection: 'close' });
  req.resume();
  return undefined;
}

function sseHeaders(sessionId: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' };
  if (sessionId) headers[sessionHeader] = sessionId;
  return headers;
}

function sseEvent(message: JsonRpcMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function sseSink(res: ServerResponse): Sink {
  return {
    send(message: JsonRpcMessage): boolean {
      if (res.writableEnded || res.destroyed) return false;
      res.write(sseEvent(message));
      return true;
    },
  };
}

async function handlePost(req: IncomingMessage, res: ServerResponse, route: McpRoute, claims: Record<string, unknown> | null, ctx: EndpointContext): Promise<void> {
  const accept = acceptance(req.headers.accept ?? '*/*');
  const sse = accept.sse;
  if (!sse && !accept.json) {
    sendError(res, 406, 'not_acceptable', 'the client must accept application/json or text/event-stream');
    return;
  }
  if (!isJsonType(req.headers['content-type'])) {
    sendError(res, 415, 'unsupported_media_type', 'the request body must be application/json');
    return;
  }
  const body = await readBody(req, res, route.maxRequestBytes);
  if (!body) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    sendJson(res, 400, rpcError(null, ParseError, `Parse error: ${(err as Error).message}`));
    return;
  }
  const batch = Array.isArray(parsed);
  const valid = batch ? (parsed as unknown[]).map(classify) : [classify(parsed)];
  if (valid.length === 0 || !valid.every((m): m is JsonRpcMessage => m !== undefined)) {
    sendJson(res, 400, rpcError(null, InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message'));
    return;
  }
  const init = valid.find((m) => isRequest(m) && m.method === 'initialize') as JsonRpcRequest | undefined;
  if (init) {
    if (valid.length > 1) {
      sendJson(res, 400, rpcError(init.id, InvalidRequest, 'Invalid Request: initialize must be sent alone'));
      return;
    }
    if (req.headers[sessionHeader] !== undefined) {
      sendJson(res, 400, rpcError(init.id, InvalidRequest, 'Invalid Request: the session is already initialized'));
      return;
    }
    await initialize(res, init, route, sse, ctx);
    return;
  }
  const session = findSession(req, res, ctx);
  if (!session) return;
  if (batch && session.protocolVersion !== '2025-03-26') {
    sendJson(res, 400, rpcError(null, InvalidRequest, `Invalid Request: batches are not allowed in protocol version ${session.protocolVersion}`));
    return;
  }
  let request: CallContext['request'] | undefined;
  const call: CallContext = {
    claims,
    // Only authorization rules read the request; most calls never pay for copying the headers.
    get request() {
      request ??= { method: req.method ?? 'POST', path: (req.url ?? '/').split('?')[0] ?? '/', headers: flatHeaders(req) };
      return request;
    },
    sink: undefined,
  };
  const requests: JsonRpcRequest[] = [];
  for (const m of valid) {
    if (isRequest(m)) requests.push(m);
    else if (isNotification(m)) session.notify(m);
    else session.respond(m as JsonRpcResponse);
  }
  if (requests.some((r) => !session.allows(r, call))) {
    sendError(res, 403, 'forbidden', 'an authorization rule denies this request');
    return;
  }
  if (requests.length === 0) {
    res.writeHead(202).end();
    return;
  }
  for (const r of requests) ctx.onMcpMethod(r.method);
  if (sse) {
    // Headers go out with the first event, so a plain call costs one write instead of three; when
    // that event is the answer, the body length is known and the response needs no chunked framing.
    res.statusCode = 200;
    res.setHeader('content-type', 'text/event-stream');
    res.setHeader('cache-control', 'no-cache');
    res.setHeader(sessionHeader, session.id);
    call.sink = sseSink(res);
    if (requests.length === 1 && requests[0]) {
      const out = await session.handle(requests[0], call);
      const body = out ? sseEvent(out) : '';
      if (!res.headersSent) res.setHeader('content-length', Buffer.byteLength(body));
      res.end(body);
      return;
    }
    await Promise.all(requests.map(async (r) => {
      const out = await session.handle(r, call);
      if (out) call.sink?.send(out);
    }));
    res.end();
    return;
  }
  const out = (await Promise.all(requests.map((r) => session.handle(r, call)))).filter((r) => r !== undefined);
  if (out.length === 0) res.writeHead(202).end();
  else sendJson(res, 200, batch ? out : out[0], { [sessionHeader]: session.id });
}

async function initialize(res: ServerResponse, init: JsonRpcRequest, route: McpRoute, sse: boolean, ctx: EndpointContext): Promise<void> {
  ctx.onMcpMethod('initialize');
  const id = randomUUID();
  const session = new McpSession({
    id, backend: route.backend, serverInfo: ctx.serverInfo, log: ctx.sessions.log.child({ session: id, route: route.name }),
    onTargetFailure: ctx.onTargetFailure,
    ...(route.security.authorize ? { authorize: route.security.authorize } : {}),
  });
  const out = await session.initialize(init);
  if ('result' in out) ctx.sessions.add(session);
  const headers: Record<string, string> = 'result' in out ? { [sessionHeader]: id } : {};
  if (sse) {
    res.writeHead(200, { ...sseHeaders(undefined), ...headers });
    res.end(sseEvent(out));
  } else {
    sendJson(res, 200, out, headers);
  }
}

function handleGet(req: IncomingMessage, res: ServerResponse, ctx: EndpointContext): void {
  if ((req.headers.accept ?? '') === '' || !acceptance(req.headers.accept ?? '').sse) {
    sendError(res, 406, 'not_acceptable', 'the GET stream needs accept: text/event-stream');
    return;
  }
  const session = findSession(req, res, ctx);
  if (!session) return;
  if (session.standalone) {
    sendError(res, 409, 'conflict', 'the session already has an open GET stream');
    return;
  }
  res.writeHead(200, sseHeaders(session.id));
  res.flushHeaders();
  const sink = sseSink(res);
  session.standalone = sink;
  // Comments keep idle intermediaries from cutting the stream.
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), 25_000);
  keepalive.unref();
  res.on('close', () => {
    clearInterval(keepalive);
    if (session.standalone === sink) session.standalone = undefined;
  });
}

function isJsonType(header: string | undefined): boolean {
  if (header === undefined) return false;
  if (header === 'application/json') return true;
  return header.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
