// GwPolicy `traffic.extAuth` over HTTP: before a request reaches its backend, an external authorization
// service is asked with a copy of its method, path and chosen headers. 200 allows; any other answer goes
// back to the client as is; a service that cannot be asked follows failureMode. Behaviour: docs/auth.md
// "External authorization".
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { Agent, request } from '../http/undici.js';
import type { Policy } from '../../ir/types.js';
import { compileCel, holds, type CelBindings, type CompiledCel } from '../policy/cel/env.js';
import { DecisionCache, type Decision } from './ext-auth-cache.js';
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

function compilePlan(p: ExtAuthorization): ExtAuthPlan | string {
  let base: URL;
  try {
    base = new URL(p.url);
  } catch {
    return `url ${JSON.stringify(p.url)} is not a URL`;
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') return `url must be http or https, got ${base.protocol}`;
  const cel = (source: string, where: string): CompiledCel | string => {
    try {
      return compileCel(source, ['request', 'jwt']);
    } catch (err) {
      return `${where} ${(err as Error).message}`;
    }
  };
  const add: [string, CompiledCel][] = [];
  for (const [name, source] of Object.entries(p.addRequestHeaders)) {
    const c = cel(source, `http.addRequestHeaders.${name}`);
    if (typeof c === 'string') return c;
    add.push([name, c]);
  }
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

export class ExtAuthClient {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000 });
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
  ): Promise<IncomingMessage | undefined> {
    const { path } = splitTarget(req.url);
    const bindings: CelBindings = {
      request: { method: req.method ?? 'GET', path, headers: flatHeaders(req) },
      ...(claims ? { jwt: claims } : {}),
    };
    // A condition that fails to evaluate does not hold, as for CEL authorization rules.
    const plan = ext.branches.find((b) => !b.condition || holds(b.condition, bindings))?.plan;
    if (!plan) return req;
    let body: Buffer | undefined;
    if (plan.maxBodyBytes !== undefined) {
      const b =
        Number(req.headers['content-length'] ?? '0') > plan.maxBodyBytes
          ? 'too_large'
          : await bufferBody(req, plan.maxBodyBytes);
      if (b === 'gone') return undefined;
      if (b === 'too_large') {
        req.resume();
        sendError(
          res,
          'payload_too_large',
          `the request body exceeds the ${plan.maxBodyBytes} bytes the authorization service may read`,
          { connection: 'close' },
        );
        return undefined;
      }
      body = b;
    }
    const key = plan.cache?.keyOf(bindings);
    const cached = key !== undefined ? plan.cache?.get(key, this.now()) : undefined;
    const outcome = cached ?? (await this.ask(req, plan, bindings, body, trace));
    if (key !== undefined && !cached && outcome.kind !== 'failed') plan.cache?.set(key, outcome, this.now());
    const log = this.opts.log.child({ route, service: plan.base.origin });
    if (outcome.kind === 'failed') {
      if (plan.failOpen) {
        log.warn({ why: outcome.why }, 'authorization service call failed; continuing (failureMode FailOpen)');
        return replay(req, body);
      }
      log.warn({ why: outcome.why }, 'authorization service call failed; denying (failureMode FailClosed)');
      if (!body) req.resume();
      sendError(res, 'forbidden', 'the authorization service could not decide; access is denied');
      return undefined;
    }
    if (outcome.kind === 'deny') {
      log.info({ status: outcome.status }, 'authorization service denied the request');
      if (!body) req.resume();
      res.writeHead(outcome.status, { ...outcome.headers, 'content-length': String(outcome.body.length) });
      res.end(outcome.body);
      return undefined;
    }
    for (const [name, value] of Object.entries(outcome.headers)) req.headers[name] = value;
    return replay(req, body);
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
    const timeoutMs = this.opts.timeoutMs ?? defaultExtAuthTimeoutMs;
    try {
      // Concatenated, never resolved: a client path such as //other.host must not pick the host.
      const answer = await request(`${plan.base.origin}${checkPath}`, {
        dispatcher: this.agent,
        method: (req.method ?? 'GET') as 'GET',
        headers: { ...checkHeaders(req, plan, bindings, body), ...trace },
        body: body ?? null,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      return await outcomeOf(answer, plan);
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
    await this.agent.close();
  }
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
async function outcomeOf(answer: Dispatcher.ResponseData, plan: ExtAuthPlan): Promise<CheckOutcome> {
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
    return { kind: 'allow', headers: copied };
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
