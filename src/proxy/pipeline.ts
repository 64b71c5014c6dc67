// The one request pipeline: every request walks these stages in this order, and the first stage that
// answers ends it. The order is the design (docs/architecture.md "A request"); a stage never calls
// another. Stages before `route` need no route; the rest see the matched, compiled route.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExtAuthClient } from './auth/ext-auth.js';
import { answerHook } from './ext/ext-proc-answer.js';
import type { ExtProcClients } from './ext/ext-proc-client.js';
import { processRequest } from './ext/ext-proc-request.js';
import { ExtProcSession } from './ext/ext-proc-session.js';
import { processAnswersOf } from './ext/ext-proc-endpoint.js';
import type { AuthResult, RouteAuth } from './auth/hooks.js';
import type { CompiledListener, CompiledRoute } from './compiled.js';
import { answerConnect } from './http/connect.js';
import { openTunnel } from './http/connect-tunnel.js';
import { answerErrorsAs, sendError } from './http/http-error.js';
import type { HttpForwarder } from './http/http-forward.js';
import { applyRouteFilters, withRequestHeaders } from './http/route-filters.js';
import { splitTarget } from './http/route-match.js';
import type { RequestTarget } from './http/request-target.js';
import { errorWireOf } from './llm/error-wire.js';
import type { LlmForwarder } from './llm/llm-forwarder.js';
import { mcpPathsOf } from './mcp/mcp-paths.js';
import { loadMcpEndpoint, loadedMcpEndpoint } from './lazy/mcp-endpoint.js';
import type { EndpointContext } from './mcp/route.js';
import { rebindingRefusal } from './mcp/rebinding.js';
import { flatHeaders } from './mcp/request.js';
import { isPreflight, preflightHeaders, responseCorsHeaders } from './policy/cors.js';
import { delayMs } from './policy/delay.js';
import { withPolicyRequestHeaders, type TrafficGate } from './policy/traffic-gate.js';
import { SpanKind, type Span } from '@opentelemetry/api';
import { chainAnswers, readA2a } from './a2a/a2a-stage.js';
import type { A2aFacts } from './a2a/call.js';
import type { AnswerHook } from './ext/ext-proc-answer.js';
import type { RequestTelemetry } from './telemetry/request-telemetry.js';
import type { GlobalRateLimits } from './policy/global-rate-limit.js';
import type { CelBindings } from './policy/cel/env.js';

/** One request on its way through the stages. */
export interface Exchange {
  /** The request as the next stage sees it: external authorization may hand on a copy with added headers. */
  req: IncomingMessage;
  readonly res: ServerResponse;
  readonly listener: CompiledListener | undefined;
  readonly route: CompiledRoute | undefined;
  /** The request target as parsed once (request-target.ts); `path` is its normalised path. */
  readonly target: RequestTarget;
  readonly path: string;
  claims: Record<string, unknown> | null;
  /** The metadata of the API key the caller authenticated with (CEL `apiKey`). */
  apiKey?: Record<string, unknown>;
  /** What the external authorization service said about the request (CEL `extauthz`). */
  extauthz?: Record<string, unknown>;
  /** What the client sent in Authorization, kept for backends that pass it through after authentication strips it. */
  clientAuthorization: string | undefined;
  /** Spans and the access-log line of this request; undefined on listeners with neither (no cost). */
  readonly telemetry: RequestTelemetry | undefined;
  /** The external processor's stream of this request (`traffic.extProc`); its response half runs in the forwarder. */
  extProc?: ExtProcSession;
  /** The A2A call of a request on an A2A route (CEL `a2a`). */
  a2a?: A2aFacts;
  /** An agent card answer's rewrite (src/proxy/a2a/card.ts), before the external processor sees it. */
  a2aAnswer?: AnswerHook;
  /** Charges an LLM answer's tokens to the global token limits the request matched (`traffic.rateLimit.global`). */
  chargeGlobalTokens?: (tokens: number) => void;
}

export type RoutedExchange = Exchange & { readonly route: CompiledRoute };

/** What the stages use; owned by the runtime. */
export interface PipelineServices {
  traffic: TrafficGate;
  extAuth: ExtAuthClient;
  extProc: ExtProcClients;
  globalLimits: GlobalRateLimits;
  llm: LlmForwarder;
  forwarder: HttpForwarder;
  endpoint: EndpointContext;
  /** An A2A call was read: its method under the A2A 1.0 name (the request metric). */
  onA2aMethod: (method: string) => void;
}

/** true: the stage answered and the request is done. Synchronous stages cost no promise. */
type Outcome = boolean | Promise<boolean>;
interface Stage<X> {
  readonly name: string;
  run(x: X, s: PipelineServices): Outcome;
}

const answered = (req: IncomingMessage): true => {
  req.resume();
  return true;
};

const beforeRoute: Stage<Exchange>[] = [
  // Decides only the shape of the errors any later stage answers with: an LLM client's own on LLM routes.
  {
    name: 'error-format',
    run: ({ res, route, listener, path }) => {
      const wire = errorWireOf(path, route, listener);
      if (wire) answerErrorsAs(res, wire);
      return false;
    },
  },
  {
    name: 'listener-limits',
    run: ({ req, res, listener }) => {
      const maxHeaders = listener?.maxHeaders;
      if (maxHeaders && req.rawHeaders.length / 2 > maxHeaders) {
        sendError(res, 'request_header_fields_too_large', `the listener accepts at most ${maxHeaders} header fields`);
        return answered(req);
      }
      const cap = listener?.concurrency;
      if (!cap) return false;
      if (cap.counter.inFlight >= cap.max) {
        sendError(res, 'overloaded', `the listener already serves ${cap.max} requests; retry later`, {
          'retry-after': '1',
        });
        return answered(req);
      }
      cap.counter.inFlight++;
      res.once('close', () => cap.counter.inFlight--);
      return false;
    },
  },
  // CONNECT: 405 unless the listener's connect policy says Route (the stages below decide) or Tunnel.
  {
    name: 'connect',
    run: ({ req, res, listener }) => req.method === 'CONNECT' && answerConnect(req, res, listener?.connect),
  },
  // A target that is not a path or http(s) URL, or whose path cannot be normalised safely: 400. `OPTIONS *`
  // asks about the server, which is this proxy: 204.
  {
    name: 'request-target',
    run: ({ req, res, target }) => {
      if (target.kind === 'invalid') sendError(res, 'bad_request', target.reason);
      else if (target.kind === 'asterisk') res.writeHead(204).end();
      else return false;
      return answered(req);
    },
  },
  {
    name: 'cors',
    run: ({ req, res, route }) => {
      const cors = route?.route.policy?.cors;
      const origin = req.headers.origin;
      if (!cors) return false;
      if (isPreflight(req.method, req.headers) && typeof origin === 'string') {
        const headers = preflightHeaders(cors, origin, req.headers['access-control-request-headers']);
        if (!headers) sendError(res, 'forbidden', `origin ${origin} is not allowed`);
        else res.writeHead(204, headers).end();
        return true;
      }
      for (const [k, v] of Object.entries(responseCorsHeaders(cors, origin))) res.setHeader(k, v);
      return false;
    },
  },
  {
    name: 'oauth-endpoints',
    run: ({ req, res, listener, path }) => {
      if (!listener) return false;
      const serving = listener.authEndpoints.get(path);
      if (!serving && listener.authUnlisted.length === 0) return false;
      return serveOAuth(serving, listener.authUnlisted, req, res);
    },
  },
  {
    name: 'route',
    run: ({ req, res, route, listener, path }) => {
      if (route) return false;
      const mcp = mcpPathsOf(listener);
      const hint = mcp.length ? `; MCP is served at ${mcp.join(', ')} on this listener` : '';
      sendError(res, 'not_found', `no route for ${path}${hint}`);
      return answered(req);
    },
  },
];

const onRoute: Stage<RoutedExchange>[] = [
  {
    name: 'refusals',
    run: ({ req, res, route }) => {
      if (route.unenforced.length === 0) return false;
      sendError(
        res,
        'policy_not_enforced',
        `route ${route.name} has ${route.unenforced.join(', ')}, which this proxy does not enforce yet`,
      );
      return answered(req);
    },
  },
  { name: 'filters', run: ({ req, res, route }) => applyRouteFilters(req, res, route.route) },
  { name: 'traffic', run: ({ req, res, route }, s) => s.traffic.handle(req, res, route.name, route.traffic) },
  {
    name: 'authentication',
    run: (x) => {
      // Authentication may strip the token; `passthrough` and token exchange still need what the client sent.
      if (x.route.llm || x.route.forward || x.route.identityTargets)
        x.clientAuthorization = x.req.headers.authorization;
      return x.route.security.auth ? authenticate(x) : false;
    },
  },
  {
    name: 'external-authorization',
    run: (x, s) =>
      (!x.route.extAuth && !x.route.backendExtAuth) || x.route.noBackend ? false : externalAuthorization(x, s),
  },
  {
    name: 'backend',
    run: ({ req, res, route }) => {
      if (!route.noBackend) return false;
      // The translator's reasons name what to fix (a missing Secret or key), never a value.
      const unserved = route.route.unservedBackends;
      const why = unserved.length ? `: ${unserved.map((u) => u.message).join('; ')}` : '';
      const credential = unserved.some((u) => u.reason === 'InvalidBackendAuth');
      sendError(
        res,
        credential ? 'credential_missing' : 'no_backend',
        `route ${route.name} has no usable backend${credential ? ' (its backend credential is missing or unusable)' : ''}${why}`,
      );
      return answered(req);
    },
  },
  // Routes to A2A agents: the JSON-RPC call is read (authorization sees `a2a.*`) and agent cards are rewritten.
  {
    name: 'a2a',
    run: (x, s) => (x.route.forward?.a2a && x.req.method !== 'CONNECT' ? a2aStage(x, s) : false),
  },
  // MCP routes authorize per JSON-RPC method inside the endpoint (mcp.tool and friends are known there).
  {
    name: 'authorization',
    run: ({ req, res, route, claims, apiKey, extauthz, a2a }) => {
      const authorize = route.security.authorize;
      if (!authorize || !(route.forward || route.llm)) return false;
      const request = requestBinding(req);
      const ctx = {
        ...(claims ? { jwt: claims } : {}),
        ...(apiKey ? { apiKey } : {}),
        ...(extauthz ? { extauthz } : {}),
        request,
        mcp: { method: '' },
        ...(a2a ? { a2a: { ...a2a } } : {}),
        ...(route.forward?.a2a ? { a2aRoute: true } : {}),
      };
      if (authorize(ctx)) return false;
      sendError(res, 'forbidden', `route ${route.name} does not allow this request`);
      return answered(req);
    },
  },
  // After authentication and authorization, so descriptors can name the caller (jwt.sub, apiKey.group) and a
  // refused request costs nothing; local limits ran before authentication (`traffic`), so a flood of
  // unauthenticated requests never reaches the shared service.
  {
    name: 'global-rate-limit',
    // Entries naming llmRequest or llm wait for the body: the LLM forwarder makes the one call once it is read.
    run: (x, s) => (x.route.globalRateLimit && !x.route.noBackend && !deferredLimit(x) ? globalRateLimit(x, s) : false),
  },
  // After every check (a processor never sees a request that is refused anyway), before delay and dispatch:
  // retries resend the processed request, prompt guards read the processed body.
  {
    name: 'external-processing',
    run: (x, s) => (x.route.extProc ? externalProcessing(x, s) : false),
  },
  // Forwarded routes wait in the forwarder, inside their request deadline.
  {
    name: 'delay',
    run: ({ req, route }) => {
      const wait = route.forward ? 0 : delayMs(route.traffic?.plan.delay, req);
      if (wait <= 0) return false;
      return new Promise<boolean>((resolve) => setTimeout(() => resolve(false), wait));
    },
  },
  {
    name: 'dns-rebinding',
    run: ({ req, res, listener, route }) => {
      if (route.llm || route.forward) return false;
      const refused = rebindingRefusal(req, listener?.hostnames ?? [], route.route);
      if (!refused) return false;
      sendError(res, 'forbidden', refused);
      return answered(req);
    },
  },
  {
    name: 'dispatch',
    run: async (x, s) => {
      const { req, res, listener, route, claims, apiKey, clientAuthorization, telemetry, extProc, a2aAnswer } = x;
      if (req.method === 'CONNECT') await openTunnel(req, res, route.forward, route.name, s.forwarder.dialer);
      else if (route.forward) {
        telemetry?.forward(req.headers);
        const caller = { authorization: clientAuthorization, claims, ...(apiKey ? { apiKey } : {}) };
        const answer = chainAnswers(a2aAnswer, extProc && answerHook(extProc, route.forward.responseBuffer?.maxBytes));
        await s.forwarder.handle(req, res, route.forward, caller, listener?.preserveHeaderCase, answer);
      } else {
        const withHeaders = withRequestHeaders(withPolicyRequestHeaders(req, route.traffic), route.route);
        // The endpoint and the LLM forwarder write their answers themselves: the processor sees them on the way out.
        const answer = extProc && answerHook(extProc);
        if (answer) processAnswersOf(res, answer);
        if (route.llm) telemetry?.llmCall();
        if (route.llm)
          await s.llm.handle(withHeaders, res, route.llm, {
            claims,
            ...(clientAuthorization ? { authorization: clientAuthorization } : {}),
            ...(apiKey ? { apiKey } : {}),
            // Read when the answer is in: a deferred check sets it after this call starts.
            onTokens: (tokens) => {
              s.traffic.chargeTokens(route.traffic, tokens);
              x.chargeGlobalTokens?.(tokens);
            },
            ...(deferredLimit(x) ? { checkLimits: (body: CelBindings) => globalRateLimit(x, s, body) } : {}),
          });
        else {
          const { handleMcp } = loadedMcpEndpoint() ?? (await loadMcpEndpoint());
          await handleMcp(withHeaders, res, route, claims, s.endpoint, apiKey, clientAuthorization);
        }
      }
      return true;
    },
  },
];

// The asynchronous halves of stages, entered only when the route or listener has something for them to do:
// a stage with nothing to do answers false at once and costs no promise.

async function serveOAuth(
  serving: RouteAuth | undefined,
  unlisted: readonly RouteAuth[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  if (serving && (await serving.handle(req, res))) return true;
  for (const auth of unlisted) if (await auth.handle(req, res)) return true;
  return false;
}

/** true when authentication answered the request itself; a plain value when the check waited for nothing. */
function authenticate(x: RoutedExchange): boolean | Promise<boolean> {
  const auth = x.route.security.auth;
  if (!auth) return false;
  const span = x.telemetry?.child('authenticate', SpanKind.INTERNAL);
  const result = auth.authenticate(x.req, x.res);
  return result instanceof Promise ? result.then((r) => authenticated(x, span, r)) : authenticated(x, span, result);
}

function authenticated(x: RoutedExchange, span: Span | undefined, result: AuthResult | null): boolean {
  span?.setAttribute('gw.authenticated', result !== null);
  span?.end();
  if (!result) return true;
  x.claims = result.claims;
  x.telemetry?.authenticated(result.claims);
  if (result.apiKey) x.apiKey = result.apiKey;
  return false;
}

/** traffic.extAuth, then backend.extAuth: each must allow; their metadata merge into CEL `extauthz` (the later wins per key). */
async function externalAuthorization(x: RoutedExchange, s: PipelineServices): Promise<boolean> {
  for (const ext of [x.route.extAuth, x.route.backendExtAuth]) {
    if (!ext) continue;
    const call = x.telemetry?.call('ext_authz');
    const checked = await s.extAuth.check(x.req, x.res, x.route.name, ext, x.claims, call?.headers);
    call?.end({ 'gw.ext_authz.allowed': checked !== undefined });
    if (!checked) return true;
    x.req = checked.req;
    if (checked.metadata) {
      x.extauthz = { ...x.extauthz, ...checked.metadata };
      x.telemetry?.authorizedExternally(x.extauthz);
    }
  }
  return false;
}

async function a2aStage(x: RoutedExchange, s: PipelineServices): Promise<boolean> {
  const forward = x.route.forward;
  if (!forward) return false;
  const read = await readA2a({
    req: x.req,
    res: x.res,
    path: x.path,
    route: forward,
    policed: x.route.security.authorize !== undefined,
    limit: x.route.maxRequestBytes,
    onCall: (facts, id) => {
      s.onA2aMethod(facts.method);
      x.telemetry?.a2a(facts, id);
    },
  });
  if (!read) return true;
  x.req = read.req;
  if (read.facts) x.a2a = read.facts;
  if (read.answer) x.a2aAnswer = read.answer;
  return false;
}

/** The request as CEL's `request` sees it in the stages after routing. */
function requestBinding(req: IncomingMessage): {
  method: string;
  path: string;
  host: string;
  headers: Record<string, string>;
} {
  return {
    method: req.method ?? 'GET',
    path: splitTarget(req.url).path,
    host: req.headers.host ?? '',
    headers: flatHeaders(req),
  };
}

/** Whether the route's global limit names the LLM request body, so the LLM forwarder checks it once the body is read. */
function deferredLimit(x: RoutedExchange): boolean {
  return x.route.globalRateLimit?.afterBody === true && x.route.llm !== undefined;
}

/**
 * traffic.rateLimit.global: one call; 429 when over a limit, 503 (or on, with FailOpen) when the service fails.
 * `body` holds `llmRequest` and `llm` when the LLM forwarder asks after reading the request.
 */
async function globalRateLimit(x: RoutedExchange, s: PipelineServices, body: CelBindings = {}): Promise<boolean> {
  const plan = x.route.globalRateLimit;
  if (!plan) return false;
  const bindings = {
    ...body,
    request: requestBinding(x.req),
    ...(x.claims ? { jwt: x.claims } : {}),
    ...(x.apiKey ? { apiKey: x.apiKey } : {}),
    ...(x.extauthz ? { extauthz: x.extauthz } : {}),
  };
  const call = x.telemetry?.call('ratelimit');
  const decision = await s.globalLimits.check(plan, bindings);
  call?.end({ 'gw.ratelimit.decision': decision.kind });
  if (decision.kind === 'unavailable') {
    if (plan.failOpen) return false;
    sendError(
      x.res,
      'rate_limit_unavailable',
      `route ${x.route.name}: the rate-limit service did not answer; retry later`,
    );
    return answered(x.req);
  }
  for (const [k, v] of Object.entries(decision.headers)) x.res.setHeader(k, v);
  if (decision.kind === 'limited') {
    s.traffic.countLimited(x.route.name);
    sendError(x.res, 'rate_limited', `route ${x.route.name} allows no more requests right now; retry later`, {
      'retry-after': String(decision.retryAfterSeconds),
    });
    return answered(x.req);
  }
  const tokens = decision.tokens;
  if (tokens.length > 0) x.chargeGlobalTokens = (n) => s.globalLimits.charge(plan, tokens, n);
  return false;
}

async function externalProcessing(x: RoutedExchange, s: PipelineServices): Promise<boolean> {
  const plan = x.route.extProc;
  if (!plan) return false;
  const call = x.telemetry?.call('ext_proc');
  const request = {
    method: x.req.method ?? 'GET',
    path: x.path,
    host: x.req.headers.host ?? '',
    headers: flatHeaders(x.req),
  };
  const bindings = { request, ...(x.claims ? { jwt: x.claims } : {}) };
  const log = s.extProc.log.child({ route: x.route.name, processor: plan.url });
  const session = new ExtProcSession(plan, s.extProc, bindings, log, call?.headers);
  x.extProc = session;
  x.telemetry?.processed(session.metadata);
  x.res.once('close', () => session.close());
  const next = await processRequest(session, x.req, x.res, x.route.maxRequestBytes);
  if (!next) return true;
  x.req = next;
  return false;
}

/** The stage names in order, for docs and tests. */
export const stageNames = [...beforeRoute, ...onRoute].map((s) => s.name);

export async function runPipeline(x: Exchange, s: PipelineServices): Promise<void> {
  for (const stage of beforeRoute) {
    const out = stage.run(x, s);
    if (out === true || (out !== false && (await out))) return;
  }
  const routed = x as RoutedExchange;
  for (const stage of onRoute) {
    const out = stage.run(routed, s);
    if (out === true || (out !== false && (await out))) return;
  }
}
