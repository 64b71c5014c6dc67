// The client-facing MCP streamable HTTP endpoint: POST (messages), GET (server-to-client stream),
// DELETE (end session). Status codes follow the MCP transport specification.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson, sendProxyError } from '../http/http-error.js';
import { ProxyError } from '../proxy-error.js';
import {
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  InvalidRequest,
  ParseError,
  classify,
  isNotification,
  isRequest,
  maxNesting,
  nestedDeeperThan,
  rpcError,
} from './jsonrpc.js';
import { handleGet } from './get-stream.js';
import { acceptance, flatHeaders, isJsonType, readBody, sessionHeader } from './request.js';
import { McpSession, mcpContextOf, type CallContext } from './session.js';
import { SessionGone } from './session-recovery.js';
import { endSealed, findSession, sessionOptions } from './session-resume.js';
import { sealedParamsTooLarge } from './session-seal.js';
import { clientKeyOf, subjectOf } from './sessions.js';
import { SseStream } from './sse-stream.js';
import { isStateless, modernSession, statelessSession } from './stateless.js';
import { isModernPost, modernStatus } from './modern.js';
import { telemetryOf } from '../telemetry/request-telemetry.js';
import type { EndpointContext, McpRoute } from './route.js';
import { withTargetIdentities } from './target-identity.js';
import { TargetGate, gateBody, withTargetGate } from './target-ext-auth.js';

/** `authorization`: the Authorization header as the client sent it (a per-request identity's subject token). */
export async function handleMcp(
  req: IncomingMessage,
  res: ServerResponse,
  route: McpRoute,
  claims: Record<string, unknown> | null,
  ctx: EndpointContext,
  apiKey?: Record<string, unknown>,
  authorization?: string,
): Promise<void> {
  // Targets with a backend.extAuth of their own are checked when this request first reaches each of them.
  const checks = route.targetExtAuth;
  const gate = checks && new TargetGate(req, res, { client: ctx.extAuth, route: route.name, targets: checks, claims });
  return gate ? withTargetGate(gate, withIdentities) : withIdentities();

  async function withIdentities(): Promise<void> {
    const targets = route.identityTargets;
    if (!targets?.length || !ctx.identities) return serveMcp(req, res, route, claims, ctx, apiKey);
    const caller = { claims, ...(authorization ? { authorization } : {}), ...(apiKey ? { apiKey } : {}) };
    const failed = await withTargetIdentities(ctx.identities, targets, req, caller, () =>
      serveMcp(req, res, route, claims, ctx, apiKey),
    );
    if (!failed) return;
    req.resume();
    sendError(res, failed.code, failed.message);
  }
}

async function serveMcp(
  req: IncomingMessage,
  res: ServerResponse,
  route: McpRoute,
  claims: Record<string, unknown> | null,
  ctx: EndpointContext,
  apiKey?: Record<string, unknown>,
): Promise<void> {
  if (req.method === 'POST') return handlePost(req, res, route, claims, ctx, apiKey);
  if (isStateless(route) && req.method !== 'POST') {
    // Nothing is held between requests, so there is no stream to open or session to end (the spec's 405).
    sendError(
      res,
      'method_not_allowed',
      `${req.method ?? ''} is not offered: this route is stateless (sessionRouting Stateless)`,
      { allow: 'POST' },
    );
    return;
  }
  if (req.method === 'GET') return handleGet(req, res, route, ctx, claims);
  if (req.method === 'DELETE') return handleDelete(req, res, route, ctx, claims);
  sendError(res, 'method_not_allowed', `method ${req.method ?? ''} is not allowed on the MCP endpoint`, {
    allow: 'GET, POST, DELETE',
  });
}

/** Ends the session everywhere: its target sessions are ended, so a replica holding a copy gets 404 from them. */
async function handleDelete(
  req: IncomingMessage,
  res: ServerResponse,
  route: McpRoute,
  ctx: EndpointContext,
  claims: Record<string, unknown> | null,
): Promise<void> {
  const id = req.headers[sessionHeader];
  const held = typeof id === 'string' ? ctx.sessions.get(id) : undefined;
  if (typeof id === 'string' && id !== '' && !held) {
    if (await endSealed(id, route, ctx, claims)) {
      await ctx.sessions.end(id);
      res.writeHead(200).end();
    } else sendError(res, 'not_found', 'the session does not exist or has ended; initialize a new one');
    return;
  }
  const session = await findSession(req, res, route, ctx, claims);
  if (!session) return;
  await ctx.sessions.end(session.id);
  res.writeHead(200).end();
}

async function handlePost(
  req: IncomingMessage,
  res: ServerResponse,
  route: McpRoute,
  claims: Record<string, unknown> | null,
  ctx: EndpointContext,
  apiKey: Record<string, unknown> | undefined,
): Promise<void> {
  const accept = acceptance(req.headers.accept ?? '*/*');
  const sse = accept.sse;
  if (!sse && !accept.json) {
    sendError(res, 'not_acceptable', 'the client must accept application/json or text/event-stream');
    return;
  }
  const messages = await readMessages(req, res, route);
  if (!messages) return;
  const { valid, batch } = messages;
  let first: JsonRpcRequest | undefined;
  let init: JsonRpcRequest | undefined;
  for (const m of valid) {
    if (!isRequest(m)) continue;
    first ??= m;
    if (m.method === 'initialize') init ??= m;
  }
  if (first) telemetryOf(res)?.mcp(first.method, first.params);
  // A 2026-07-28 request names no session: it is served on its own, whatever the route's session routing.
  const modern = isModern(req, valid, batch);
  if (init && !modern) {
    if (initializeRefused(req, res, init, valid.length, route, claims, apiKey)) return;
    await initialize(req, res, init, route, sse, claims, ctx);
    return;
  }
  const oneShot = modern || isStateless(route);
  const found = modern
    ? modernSession(req, res, route, ctx, valid[0] as JsonRpcMessage, claims)
    : isStateless(route)
      ? statelessSession(req, res, route, ctx, valid)
      : findSession(req, res, route, ctx, claims);
  const session = found instanceof Promise ? await found : found;
  if (!session) return;
  // A 2026 client cancels a request by closing its stream: the call and the request's target sessions end with it.
  if (modern) res.once('close', () => void (res.writableFinished ? undefined : session.close()));
  try {
    await serve(req, res, session, valid, batch, sse, { claims, ...(apiKey ? { apiKey } : {}) }, ctx);
  } catch (err) {
    if (!(err instanceof SessionGone)) throw err;
    // Every target session is gone (or FailClosed lost a target): the client must initialize again.
    session.log.info({ reason: err.message }, 'session lost at its targets');
    await ctx.sessions.end(session.id, err.message);
    if (!res.headersSent) sendError(res, 'not_found', 'the session has ended at its targets; initialize a new one');
    else res.end();
  } finally {
    if (oneShot) await session.close();
  }
}

function isModern(req: IncomingMessage, valid: JsonRpcMessage[], batch: boolean): boolean {
  const header = req.headers['mcp-protocol-version'];
  return (
    req.headers[sessionHeader] === undefined &&
    isModernPost(valid, batch, typeof header === 'string' ? header : undefined)
  );
}

/** The POST's JSON-RPC messages (one, or a batch), or undefined once the client's mistake is answered. */
async function readMessages(
  req: IncomingMessage,
  res: ServerResponse,
  route: McpRoute,
): Promise<{ valid: JsonRpcMessage[]; batch: boolean } | undefined> {
  if (!isJsonType(req.headers['content-type'])) {
    sendError(res, 'unsupported_media_type', 'the request body must be application/json');
    return undefined;
  }
  const body = await readBody(req, res, route.maxRequestBytes);
  if (!body) return undefined;
  gateBody(body);
  const text = body.toString('utf8');
  if (nestedDeeperThan(text)) {
    sendJson(
      res,
      400,
      rpcError(null, InvalidRequest, `Invalid Request: values may nest at most ${maxNesting} levels deep`),
    );
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // V8's SyntaxError describes the client's own text (a position, a token); anything else stays in the log.
    sendJson(
      res,
      400,
      rpcError(null, ParseError, err instanceof SyntaxError ? `Parse error: ${err.message}` : 'Parse error'),
    );
    return undefined;
  }
  const batch = Array.isArray(parsed);
  const valid = batch ? (parsed as unknown[]).map(classify) : [classify(parsed)];
  if (valid.length === 0 || !valid.every((m): m is JsonRpcMessage => m !== undefined)) {
    sendJson(res, 400, rpcError(null, InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message'));
    return undefined;
  }
  return { valid, batch };
}

/** An initialize sent with other messages, on an existing session, or denied by authorization is answered here. */
function initializeRefused(
  req: IncomingMessage,
  res: ServerResponse,
  init: JsonRpcRequest,
  messages: number,
  route: McpRoute,
  claims: Record<string, unknown> | null,
  apiKey: Record<string, unknown> | undefined,
): boolean {
  if (messages > 1) {
    sendJson(res, 400, rpcError(init.id, InvalidRequest, 'Invalid Request: initialize must be sent alone'));
    return true;
  }
  if (req.headers[sessionHeader] !== undefined && !isStateless(route)) {
    sendJson(res, 400, rpcError(init.id, InvalidRequest, 'Invalid Request: the session is already initialized'));
    return true;
  }
  const authorize = route.security.authorize;
  if (
    authorize &&
    !authorize({
      ...(claims ? { jwt: claims } : {}),
      ...(apiKey ? { apiKey } : {}),
      request: { method: 'POST', path: (req.url ?? '/').split('?')[0] ?? '/', headers: flatHeaders(req) },
      mcp: mcpContextOf(init),
    })
  ) {
    sendError(res, 'forbidden', 'an authorization rule denies this request');
    return true;
  }
  return false;
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  session: McpSession,
  valid: JsonRpcMessage[],
  batch: boolean,
  sse: boolean,
  caller: Pick<CallContext, 'claims' | 'apiKey'>,
  ctx: EndpointContext,
): Promise<void> {
  if (batch && session.protocolVersion !== '2025-03-26') {
    sendJson(
      res,
      400,
      rpcError(
        null,
        InvalidRequest,
        `Invalid Request: batches are not allowed in protocol version ${session.protocolVersion}`,
      ),
    );
    return;
  }
  const call = callContext(req, res, caller);
  const requests: JsonRpcRequest[] = [];
  for (const m of valid) {
    if (isRequest(m)) requests.push(m);
    else if (isNotification(m)) session.notify(m, call);
    else session.respond(m as JsonRpcResponse);
  }
  for (const r of requests) {
    if (session.allows(r, call)) continue;
    sendError(res, 'forbidden', 'an authorization rule denies this request');
    return;
  }
  if (requests.length === 0) {
    res.writeHead(202).end();
    return;
  }
  for (const r of requests) ctx.onMcpMethod(r.method);
  if (sse) return streamAnswers(res, session, requests, call, ctx);
  const out = (await Promise.all(requests.map((r) => session.handle(r, call)))).filter((r) => r !== undefined);
  if (out.length === 0) res.writeHead(202).end();
  else if (session.modern) sendJson(res, modernStatus(out[0]), out[0]);
  else sendJson(res, 200, batch ? out : out[0], session.id ? { [sessionHeader]: session.id } : {});
}

/** What the session's handlers know about the caller and the request. */
function callContext(
  req: IncomingMessage,
  res: ServerResponse,
  caller: Pick<CallContext, 'claims' | 'apiKey'>,
): CallContext {
  return new Call(req, res, caller, telemetryOf(res)?.upstreamHeaders());
}

/**
 * A call's context. A class, not an object literal with a getter: a getter written in a literal is a new
 * closure in a new hidden class on every call, which V8 keeps in the old generation, so each call's
 * request and response were promoted there and freed only by full collections (4 KB per call, GC pauses
 * ×9 at 1,000 calls/s; docs/performance.md).
 */
class Call implements CallContext {
  readonly claims: Record<string, unknown> | null;
  readonly apiKey: Record<string, unknown> | undefined;
  sink: CallContext['sink'] = undefined;
  readonly trace: Record<string, string> | undefined;
  private copied: CallContext['request'] | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    caller: Pick<CallContext, 'claims' | 'apiKey'>,
    trace: Record<string, string> | undefined,
  ) {
    this.claims = caller.claims;
    this.apiKey = caller.apiKey;
    this.trace = trace;
  }

  // Only a subscriptions/listen waits for it.
  get closed(): Promise<void> {
    return (this.closing ??= new Promise((resolve) => {
      if (this.res.destroyed || this.res.writableEnded) resolve();
      else this.res.once('close', () => resolve());
    }));
  }

  // Only authorization rules read the request; most calls never pay for copying the headers.
  get request(): CallContext['request'] {
    return (this.copied ??= {
      method: this.req.method ?? 'POST',
      path: (this.req.url ?? '/').split('?')[0] ?? '/',
      headers: flatHeaders(this.req),
    });
  }
}

/**
 * Answers on an SSE stream. Headers go out with the first event, so a plain call costs one write; when
 * that event is the answer, the body length is known and the response needs no chunked framing. Clients
 * from 2025-11-25 on get a priming event (an id, no data) once a call runs past primeAfterMs, so a lost
 * stream can be resumed.
 */
async function streamAnswers(
  res: ServerResponse,
  session: McpSession,
  requests: JsonRpcRequest[],
  call: CallContext,
  ctx: EndpointContext,
): Promise<void> {
  const stream = session.openStream();
  stream.attach(res);
  call.sink = stream;
  const primed = session.events !== undefined && session.protocolVersion >= '2025-11-25';
  if (primed) ctx.sessions.primer.add(stream);
  try {
    if (requests.length === 1 && requests[0]) {
      const out = await session.handle(requests[0], call);
      // A 2026 client's protocol error has its own HTTP status, given while nothing has been streamed yet.
      const status = session.modern ? modernStatus(out) : 200;
      if (status !== 200 && !res.headersSent) sendJson(res, status, out);
      else session.finishStream(stream, out);
      return;
    }
    await Promise.all(
      requests.map(async (r) => {
        const out = await session.handle(r, call);
        if (out) stream.send(out);
      }),
    );
    session.finishStream(stream);
  } finally {
    if (primed) ctx.sessions.primer.delete(stream);
    session.streams.delete(stream.no); // also when handling threw: a resume must not wait on it
  }
}

async function initialize(
  req: IncomingMessage,
  res: ServerResponse,
  init: JsonRpcRequest,
  route: McpRoute,
  sse: boolean,
  claims: Record<string, unknown> | null,
  ctx: EndpointContext,
): Promise<void> {
  ctx.onMcpMethod('initialize');
  const tooLarge = sealedParamsTooLarge(init.params);
  if (tooLarge) {
    sendJson(res, 400, rpcError(init.id, InvalidRequest, `Invalid Request: ${tooLarge}`));
    return;
  }
  const stateless = isStateless(route);
  const admission = stateless ? undefined : ctx.sessions.admit(clientKeyOf(claims, req.socket.remoteAddress));
  if (admission && !admission.ok) {
    sendError(res, admission.code, admission.message, { 'retry-after': String(admission.retryAfterSeconds) });
    return;
  }
  // A stateless route answers initialize from a throwaway session and hands out no session id; a
  // stateful one seals the session's state into its id once the targets have answered.
  const session = new McpSession(sessionOptions(route, ctx, '', stateless));
  session.subject = subjectOf(claims);
  let out: JsonRpcResponse | undefined;
  try {
    out = await session.initialize(init);
  } catch (err) {
    if (!(err instanceof ProxyError)) throw err;
    sendProxyError(res, err);
    return;
  } finally {
    // A failed or thrown initialize frees its slot; a committed one is freed when the session ends.
    if (admission?.ok && !(out && 'result' in out)) admission.reservation.cancel();
  }
  if (stateless) await session.close();
  else if ('result' in out && admission?.ok) {
    ctx.sessions.seal(session, route.name);
    admission.reservation.commit(session);
    // Only here: a session resumed on another worker or process logs 'session resumed from its sealed id'.
    session.log.info('session started');
  }
  const id = session.id;
  const headers: Record<string, string> = 'result' in out && id ? { [sessionHeader]: id } : {};
  if (sse) {
    const stream = new SseStream(1, undefined, 'result' in out ? id : '');
    stream.attach(res);
    stream.end(out);
  } else {
    sendJson(res, 200, out, headers);
  }
}
