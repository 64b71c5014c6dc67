// GwPolicy `traffic.extAuth`: before a request reaches its backend, an external authorization service is
// asked, over HTTP with a copy of its method, path and chosen headers (200 allows; any other answer goes back
// to the client as is) or over Envoy's gRPC protocol (ext-auth-grpc.ts). A service that cannot be asked
// follows failureMode. Behaviour: docs/auth.md "External authorization".
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { Agent, request } from '../http/undici.js';
import type { Policy } from '../../ir/types.js';
import {
  celToJson,
  compileCel,
  holds,
  isCelError,
  type CelBindings,
  type CelVariable,
  type CompiledCel,
} from '../policy/cel/env.js';
import { DecisionCache, type Decision, type HeaderMutation } from './ext-auth-cache.js';
import { checkMethod, checkRequest, decisionOf, type GrpcCheckPlan } from './ext-auth-grpc.js';
import { GrpcCallError, GrpcClients, grpcTlsOf, type GrpcTls } from '../ext/grpc-clients.js';
import { withoutHopByHop } from '../http/forward-headers.js';
import { sendError } from '../http/http-error.js';
import { flatHeaders } from '../mcp/request.js';
import { bufferBody } from '../policy/retry.js';
import { splitTarget } from '../http/route-match.js';

/** The seed gives no timeout; a check slower than this counts as a failed call (failureMode decides). */
export const defaultExtAuthTimeoutMs = 5_000;

type ExtAuthorization = NonNullable<Policy['extAuthorization']>;

export interface ExtAuthPlan {
  base: URL;
  failOpen: boolean;
  /** Set: the service is asked over gRPC ext_authz; the HTTP fields below are unused. */
  grpc?: GrpcCheckPlan;
  /** HTTP with TLS settings of its own (a GwBackend's backend.tls); unset: the shared pool. */
  agent?: Agent;
  /** http.redirect: a 401 denial becomes a 302 to this URL. */
  redirect?: CompiledCel;
  /** http.body: the check request's body. */
  body?: CompiledCel;
  /** http.responseMetadata: evaluated on an allowing answer into CEL `extauthz`. */
  responseMetadata: readonly [string, CompiledCel][];
  allowedRequestHeaders: readonly string[];
  addRequestHeaders: readonly [string, CompiledCel][];
  allowedResponseHeaders: readonly string[];
  path?: CompiledCel;
  /** Set with forwardBody: the largest client body sent along; larger ones get 413. */
  maxBodyBytes?: number;
  cache?: DecisionCache;
}

/** Which service asks about a request: the first branch whose condition holds or that has none; none holding means no check. */
export interface ExtAuthRoute {
  branches: { condition?: CompiledCel; plan: ExtAuthPlan }[];
}

/** The route's branches, or why they cannot be enforced (the runtime then refuses the route with 503). */
export function compileExtAuth(p: ExtAuthorization): ExtAuthRoute | string {
  if (p.conditional.length === 0) {
    const plan = compilePlan(p);
    return typeof plan === 'string' ? plan : { branches: [{ plan }] };
  }
  const branches: ExtAuthRoute['branches'] = [];
  for (const [i, b] of p.conditional.entries()) {
    const plan = b.policy ? compilePlan(b.policy) : 'no policy';
    if (typeof plan === 'string') return `conditional[${i}].policy: ${plan}`;
    let condition: CompiledCel | undefined;
    try {
      if (b.condition) condition = compileCel(b.condition, ['request', 'jwt']);
    } catch (err) {
      return `conditional[${i}].condition ${(err as Error).message}`;
    }
    branches.push({ ...(condition ? { condition } : {}), plan });
  }
  return { branches };
}

const cel = (source: string, where: string, vars: CelVariable[] = ['request', 'jwt']): CompiledCel | string => {
  try {
    return compileCel(source, vars);
  } catch (err) {
    return `${where} ${(err as Error).message}`;
  }
};

/** Each `name → CEL` entry compiled, sorted by name, or the first that does not compile. */
function celMap(m: Record<string, string>, where: string, vars?: CelVariable[]): [string, CompiledCel][] | string {
  const out: [string, CompiledCel][] = [];
  for (const name of Object.keys(m).sort()) {
    const c = cel(m[name] ?? '', `${where}.${name}`, vars);
    if (typeof c === 'string') return c;
    out.push([name, c]);
  }
  return out;
}

const grpcSchemes = ['http:', 'https:', 'grpc:', 'grpcs:'];

function compilePlan(p: ExtAuthorization): ExtAuthPlan | string {
  let base: URL;
  try {
    base = new URL(p.url);
  } catch {
    return `url ${JSON.stringify(p.url)} is not a URL`;
  }
  if (p.grpc ? !grpcSchemes.includes(base.protocol) : base.protocol !== 'http:' && base.protocol !== 'https:')
    return `url must be ${p.grpc ? 'grpc, grpcs, http or https' : 'http or https'}, got ${base.protocol}`;
  const secure = base.protocol === 'https:' || base.protocol === 'grpcs:';
  const tls = grpcTlsOf(p.tls, secure);
  let grpc: GrpcCheckPlan | undefined;
  if (p.grpc) {
    const requestMetadata = celMap(p.grpc.requestMetadata, 'grpc.requestMetadata');
    if (typeof requestMetadata === 'string') return requestMetadata;
    const port = base.port || (secure ? '443' : '80');
    grpc = {
      target: { address: `${base.hostname}:${port}`, ...(tls ? { tls } : {}) },
      contextExtensions: { ...p.grpc.contextExtensions },
      requestMetadata,
    };
  }
  const redirect = p.redirectExpression ? cel(p.redirectExpression, 'http.redirect') : undefined;
  if (typeof redirect === 'string') return redirect;
  const body = p.bodyExpression ? cel(p.bodyExpression, 'http.body') : undefined;
  if (typeof body === 'string') return body;
  const responseMetadata = celMap(p.responseMetadata, 'http.responseMetadata', ['request', 'jwt', 'response']);
  if (typeof responseMetadata === 'string') return responseMetadata;
  const add = celMap(p.addRequestHeaders, 'http.addRequestHeaders');
  if (typeof add === 'string') return add;
  const path = p.pathExpression ? cel(p.pathExpression, 'http.path') : undefined;
  if (typeof path === 'string') return path;
  let cache: DecisionCache | undefined;
  if (p.cache) {
    const keys: CompiledCel[] = [];
    for (const [i, source] of p.cache.key.entries()) {
      const c = cel(source, `cache.key[${i}]`);
      if (typeof c === 'string') return c;
      keys.push(c);
    }
    cache = new DecisionCache(keys, p.cache.ttlMs, Math.max(1, p.cache.maxEntries));
  }
  return {
    base,
    failOpen: p.failOpen,
    ...(grpc ? { grpc } : {}),
    ...(!grpc && p.tls && tls ? { agent: new Agent({ keepAliveTimeout: 30_000, connect: undiciTls(tls) }) } : {}),
    ...(redirect ? { redirect } : {}),
    ...(body ? { body } : {}),
    responseMetadata,
    allowedRequestHeaders: p.allowedRequestHeaders,
    addRequestHeaders: add,
    allowedResponseHeaders: p.allowedResponseHeaders,
    ...(path ? { path } : {}),
    ...(p.forwardBody ? { maxBodyBytes: p.maxBodyBytes } : {}),
    ...(cache ? { cache } : {}),
  };
}

type CheckOutcome = Decision | { kind: 'failed'; why: string };

/** A denial's body is buffered (to cache it and to send it with a length); a larger one counts as a failed call. */
const maxDenialBytes = 1024 * 1024;

/** What the pipeline continues with after an allow: the request (a replay when the body was read) and `extauthz` for CEL. */
export interface Checked {
  req: IncomingMessage;
  metadata?: Record<string, unknown>;
}

/** What the service decided about one request; `refused`: the proxy denies (a failed call, a body too large). */
export type Verdict =
  | { kind: 'allow'; checked: Checked }
  | (Extract<Decision, { kind: 'deny' }> & { redirect: unknown })
  | { kind: 'refused'; code: 'forbidden' | 'payload_too_large'; message: string }
  | { kind: 'gone' };

export class ExtAuthClient {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000 });
  private readonly grpc = new GrpcClients();
  private readonly now: () => number;
  constructor(private readonly opts: { log: Logger; timeoutMs?: number; clock?: () => number }) {
    this.now = opts.clock ?? Date.now;
  }

  /**
   * Asks the route's authorization service about `req`. Returns the request to continue with (a replay of
   * the buffered body when forwardBody read it), or undefined when the response was already sent.
   */
  async check(
    req: IncomingMessage,
    res: ServerResponse,
    route: string,
    ext: ExtAuthRoute,
    claims: Record<string, unknown> | null,
    /** The check's trace context (`traceparent`), when the request is traced. */
    trace?: Record<string, string>,
  ): Promise<Checked | undefined> {
    const v = await this.decide(req, route, ext, claims, trace, res);
    if (v.kind === 'allow') return v.checked;
    if (v.kind === 'deny') sendDenial(res, v);
    else if (v.kind === 'refused')
      sendError(res, v.code, v.message, v.code === 'payload_too_large' ? { connection: 'close' } : {});
    return undefined;
  }

  /**
   * The service's verdict on `req` without answering anyone: an MCP target's check (mcp/target-ext-auth.ts)
   * turns a denial into that call's JSON-RPC error. `res`, when given, receives the allow's response headers.
   */
  async decide(
    req: IncomingMessage,
    route: string,
    ext: ExtAuthRoute,
    claims: Record<string, unknown> | null,
    trace: Record<string, string> | undefined,
    res?: ServerResponse,
  ): Promise<Verdict> {
    const { path } = splitTarget(req.url);
    const bindings: CelBindings = {
      request: { method: req.method ?? 'GET', path, headers: flatHeaders(req) },
      ...(claims ? { jwt: claims } : {}),
    };
    // A condition that fails to evaluate does not hold, as for CEL authorization rules.
    const plan = ext.branches.find((b) => !b.condition || holds(b.condition, bindings))?.plan;
    if (!plan) return { kind: 'allow', checked: { req } };
    const body = await readBody(req, plan);
    if (body === 'gone') return { kind: 'gone' };
    if (body === 'too_large') {
      req.resume();
      const message = `the request body exceeds the ${plan.maxBodyBytes} bytes the authorization service may read`;
      return { kind: 'refused', code: 'payload_too_large', message };
    }
    const key = plan.cache?.keyOf(bindings);
    const cached = key !== undefined ? plan.cache?.get(key, this.now()) : undefined;
    const outcome =
      cached ??
      (plan.grpc
        ? await this.askGrpc(req, plan.grpc, bindings, body, trace)
        : await this.ask(req, plan, bindings, body, trace));
    if (key !== undefined && !cached && outcome.kind !== 'failed') plan.cache?.set(key, outcome, this.now());
    const log = this.opts.log.child({ route, service: plan.base.origin });
    if (outcome.kind === 'failed') {
      if (plan.failOpen) {
        log.warn({ why: outcome.why }, 'authorization service call failed; continuing (failureMode FailOpen)');
        return { kind: 'allow', checked: { req: replay(req, body) } };
      }
      log.warn({ why: outcome.why }, 'authorization service call failed; denying (failureMode FailClosed)');
      if (!body) req.resume();
      return {
        kind: 'refused',
        code: 'forbidden',
        message: 'the authorization service could not decide; access is denied',
      };
    }
    if (outcome.kind === 'deny') {
      log.info({ status: outcome.status }, 'authorization service denied the request');
      if (!body) req.resume();
      return { ...outcome, redirect: plan.redirect?.evaluate(bindings) };
    }
    applyAllow(req, res, outcome, log);
    const checked = { req: replay(req, body), ...(outcome.metadata ? { metadata: outcome.metadata } : {}) };
    return { kind: 'allow', checked };
  }

  private async askGrpc(
    req: IncomingMessage,
    plan: GrpcCheckPlan,
    bindings: CelBindings,
    body: Buffer | undefined,
    trace: Record<string, string> | undefined,
  ): Promise<CheckOutcome> {
    const timeoutMs = this.opts.timeoutMs ?? defaultExtAuthTimeoutMs;
    try {
      const answer = await this.grpc.unary(plan.target, checkMethod(), checkRequest(req, plan, bindings, body), {
        deadlineMs: timeoutMs,
        ...(trace ? { metadata: trace } : {}),
      });
      return decisionOf(answer);
    } catch (err) {
      if (err instanceof GrpcCallError)
        return {
          kind: 'failed',
          why: err.code === 'DEADLINE_EXCEEDED' ? `no answer within ${timeoutMs} ms` : err.code,
        };
      return { kind: 'failed', why: (err as Error).message };
    }
  }

  private async ask(
    req: IncomingMessage,
    plan: ExtAuthPlan,
    bindings: CelBindings,
    body: Buffer | undefined,
    trace: Record<string, string> | undefined,
  ): Promise<CheckOutcome> {
    let checkPath = `${plan.base.pathname.replace(/\/+$/, '')}${req.url ?? '/'}`;
    if (plan.path) {
      const v = plan.path.evaluate(bindings);
      if (typeof v !== 'string' || !v.startsWith('/'))
        return { kind: 'failed', why: 'http.path did not yield a path starting with /' };
      checkPath = v;
    }
    let sent = body;
    if (plan.body) {
      const v = plan.body.evaluate(bindings);
      if (typeof v === 'string') sent = Buffer.from(v);
      else if (v instanceof Uint8Array) sent = Buffer.from(v);
      else return { kind: 'failed', why: 'http.body did not yield a string or bytes' };
    }
    const timeoutMs = this.opts.timeoutMs ?? defaultExtAuthTimeoutMs;
    try {
      // Concatenated, never resolved: a client path such as //other.host must not pick the host.
      const answer = await request(`${plan.base.origin}${checkPath}`, {
        dispatcher: plan.agent ?? this.agent,
        method: (req.method ?? 'GET') as 'GET',
        headers: { ...checkHeaders(req, plan, bindings, sent), ...trace },
        body: sent ?? null,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      return await outcomeOf(answer, plan, bindings);
    } catch (err) {
      const e = err as { name?: string; code?: string };
      return {
        kind: 'failed',
        why:
          e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT'
            ? `no answer within ${timeoutMs} ms`
            : (e.code ?? e.name ?? 'request failed'),
      };
    }
  }

  async close(): Promise<void> {
    this.grpc.close();
    await this.agent.close();
  }
}

/**
 * forwardBody: the client body (at most maxSize bytes; a larger one is refused before the service is asked).
 * Undefined when the plan reads no body; 'gone' when the client left.
 */
async function readBody(req: IncomingMessage, plan: ExtAuthPlan): Promise<Buffer | undefined | 'too_large' | 'gone'> {
  if (plan.maxBodyBytes === undefined) return undefined;
  if (Number(req.headers['content-length'] ?? '0') > plan.maxBodyBytes) return 'too_large';
  return bufferBody(req, plan.maxBodyBytes);
}

/** The denial as the service gave it; a 401 becomes a 302 to http.redirect's URL when that yields one. */
function sendDenial(res: ServerResponse, d: Extract<Verdict, { kind: 'deny' }>): void {
  const { redirect } = d;
  if (d.status === 401 && typeof redirect === 'string' && redirect !== '' && !/[\r\n\0]/.test(redirect)) {
    res.writeHead(302, { location: redirect, 'content-length': '0' });
    res.end();
    return;
  }
  res.writeHead(d.status, { ...d.headers, 'content-length': String(d.body.length) });
  res.end(d.body);
}

/** Headers no service may change: the request's routing facts and framing. */
const protectedHeaders = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
const validName = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const validValue = /^[^\r\n\0]*$/;

/** The allow's changes to the upstream request and the client response; an unusable header is skipped and logged. */
function applyAllow(
  req: IncomingMessage,
  res: ServerResponse | undefined,
  d: Extract<Decision, { kind: 'allow' }>,
  log: Logger,
): void {
  for (const [name, value] of Object.entries(d.headers)) req.headers[name] = value;
  const usable = (m: HeaderMutation): boolean => {
    const ok = validName.test(m.name) && !protectedHeaders.has(m.name) && validValue.test(m.value);
    if (!ok)
      log.warn({ header: m.name }, 'authorization service asked for a header change that is not allowed; skipped');
    return ok;
  };
  for (const m of d.mutations ?? []) {
    if (!usable(m)) continue;
    const had = req.headers[m.name];
    if (m.action === 'set' || (m.action === 'setIfPresent' && had !== undefined)) req.headers[m.name] = m.value;
    else if (m.action === 'addIfAbsent' && had === undefined) req.headers[m.name] = m.value;
    else if (m.action === 'append')
      req.headers[m.name] = had === undefined ? m.value : `${[had].flat().join(', ')}, ${m.value}`;
  }
  for (const name of d.remove ?? []) if (!protectedHeaders.has(name) && !name.startsWith(':')) delete req.headers[name];
  for (const m of res ? (d.responseHeaders ?? []) : []) {
    if (!usable(m) || !res) continue;
    if (m.action === 'append') res.appendHeader(m.name, m.value);
    else if (m.action !== 'setIfPresent' || res.hasHeader(m.name))
      if (m.action !== 'addIfAbsent' || !res.hasHeader(m.name)) res.setHeader(m.name, m.value);
  }
}

function undiciTls(t: GrpcTls): Record<string, unknown> {
  return {
    ...(t.caPem ? { ca: t.caPem } : {}),
    ...(t.certChainPem ? { cert: t.certChainPem } : {}),
    ...(t.privateKeyPem ? { key: t.privateKeyPem } : {}),
    ...(t.serverName ? { servername: t.serverName } : {}),
    ...(t.skipVerify ? { rejectUnauthorized: false } : {}),
  };
}

/** The check request's headers: the allowed client headers, then the forwarded facts, then added ones. */
function checkHeaders(
  req: IncomingMessage,
  plan: ExtAuthPlan,
  bindings: CelBindings,
  body: Buffer | undefined,
): Record<string, string | string[]> {
  const { path, query } = splitTarget(req.url);
  const headers: Record<string, string | string[]> = {};
  for (const name of plan.allowedRequestHeaders) {
    const v = req.headers[name];
    if (v !== undefined && name !== 'host' && name !== 'content-length') headers[name] = v;
  }
  // After the client's own headers, so a client cannot tell the service it asked for something else.
  Object.assign(headers, {
    'x-forwarded-host': req.headers.host ?? '',
    'x-forwarded-method': req.method ?? 'GET',
    'x-forwarded-uri': `${path}${query ? `?${query}` : ''}`,
  });
  for (const [name, cel] of plan.addRequestHeaders) {
    const v = cel.evaluate(bindings);
    // A value the request cannot give (a claim of an absent token) is left out; the service decides without it.
    if (typeof v === 'string' && !/[\r\n\0]/.test(v)) headers[name] = v;
  }
  if (body) {
    headers['content-length'] = String(body.length);
    if (req.headers['content-type']) headers['content-type'] = req.headers['content-type'];
  }
  return headers;
}

/** 5xx: the service failed; 200: allow with the allowed response headers; anything else: its denial, passed on. */
async function outcomeOf(
  answer: Dispatcher.ResponseData,
  plan: ExtAuthPlan,
  bindings: CelBindings,
): Promise<CheckOutcome> {
  if (answer.statusCode >= 500) {
    await answer.body.dump();
    return { kind: 'failed', why: `answered ${answer.statusCode}` };
  }
  if (answer.statusCode === 200) {
    await answer.body.dump();
    const copied: Record<string, string | string[]> = {};
    for (const name of plan.allowedResponseHeaders) {
      const v = answer.headers[name];
      if (v !== undefined) copied[name] = v;
    }
    const metadata = responseMetadata(plan, bindings, answer);
    return { kind: 'allow', headers: copied, ...(metadata ? { metadata } : {}) };
  }
  const passed = withoutHopByHop(answer.headers);
  delete passed['content-length'];
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of answer.body as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > maxDenialBytes) {
      answer.body.destroy();
      return { kind: 'failed', why: `a denial body larger than ${maxDenialBytes} bytes` };
    }
    chunks.push(c);
  }
  return { kind: 'deny', status: answer.statusCode, headers: passed, body: Buffer.concat(chunks) };
}

/** http.responseMetadata over the allowing answer (`response.code`, `response.headers`); a failing entry is left out. */
function responseMetadata(
  plan: ExtAuthPlan,
  bindings: CelBindings,
  answer: Dispatcher.ResponseData,
): Record<string, unknown> | undefined {
  if (plan.responseMetadata.length === 0) return undefined;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined) headers[k] = [v].flat().join(',');
  const withResponse: CelBindings = { ...bindings, response: { code: answer.statusCode, headers } };
  const out: Record<string, unknown> = {};
  for (const [name, c] of plan.responseMetadata) {
    const v = c.evaluate(withResponse);
    const json = v instanceof Error || isCelError(v) ? undefined : celToJson(v);
    if (json !== undefined) out[name] = json;
  }
  return out;
}

/**
 * A request already read (the LLM forwarder buffers bodies) as a fresh stream of `body`, with headers of its own:
 * what an allow adds stays on this copy. The copy is what `check` reads (forwardBody) and answers with.
 */
export function requestCopy(req: IncomingMessage, body: Buffer): IncomingMessage {
  return replay(Object.assign(Object.create(req) as IncomingMessage, { headers: { ...req.headers } }), body);
}

/** The body was read to ask the service; the backend gets the same bytes from a fresh request stream. */
function replay(req: IncomingMessage, body: Buffer | undefined): IncomingMessage {
  if (!body) return req;
  const copy = new IncomingMessage(req.socket);
  Object.assign(copy, {
    method: req.method,
    url: req.url,
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    httpVersion: req.httpVersion,
    httpVersionMajor: req.httpVersionMajor,
    httpVersionMinor: req.httpVersionMinor,
    complete: true,
  });
  copy.push(body);
  copy.push(null);
  return copy;
}
