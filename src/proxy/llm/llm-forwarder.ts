// The LLM data plane: an OpenAI chat-completions request on an `ai` route is checked, shaped per provider,
// guarded and sent to the first healthy provider, failing over across providers and priority groups
// until a response starts. Behaviour: docs/proxy.md "LLM backends".
import type { WorkloadIdentity } from '../identity/workload-identity.js';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { Agent } from '../http/undici.js';
import { withoutHopByHop } from '../http/forward-headers.js';
import { applyHeaderModifier } from '../http/route-filters.js';
import type { GuardRequestContext, LlmGuards } from '../guard/types.js';
import { sendError, sendJson } from '../http/http-error.js';
import { ProxyError, type ErrorCode } from '../proxy-error.js';
import type { ProxyMetrics } from '../metrics.js';
import { bufferBody } from '../policy/retry.js';
import { splitTarget } from '../http/route-match.js';
import { UpstreamDialers, dialPlan, needsDialer, planKey } from '../http/upstream-dial.js';
import { H2Upstreams, type UpstreamResponse } from '../http/h2-upstream.js';
import { CallAbort, type CallSignal } from '../http/call-signal.js';
import { UpstreamTlsPool } from '../http/upstream-tls.js';
import { toAnthropicRequest } from './anthropic.js';
import { toConverseRequest } from './bedrock.js';
import { toCohereRequest } from './cohere.js';
import { CloudAuth, CloudAuthFailure } from './cloud-auth.js';
import { checkChatRequest, shapeChatRequest, type ChatBody, type Checked } from './chat-request.js';
import { applyTransformations } from './field-transformations.js';
import { placeCacheBreakpoints } from './prompt-caching.js';
import type { CelBindings } from '../policy/cel/env.js';
import {
  EVENT_STREAM,
  errorTypeOf,
  guardHeaders,
  headerText,
  hostHeader,
  signedOnly,
  upstreamHeaders,
} from './llm-headers.js';
import {
  LlmUsage,
  usageSink,
  MAX_RESPONSE_BYTES,
  readBounded,
  relayBuffered,
  relayError,
  relayEventStream,
  relayStream,
  type Answer,
  type UsageSink,
} from './llm-response.js';
import { sendVerdict } from './held-stream.js';
import { ProviderModeration } from './moderation.js';
import { webhookPoolSettings } from '../guard/pool-env.js';
import { telemetryOf } from '../telemetry/request-telemetry.js';
import type { AiRouteType__Output as AiRouteType } from '../../ir/gen/gw/ir/v1/AiRouteType.js';
import { routeTypeOf, type LlmProvider, type LlmRoute } from './llm-route.js';
import type { PlainRouteType, WireFormat } from './vendors.js';
import { chooseModel, modelList } from './model-routing.js';
import { ProviderHealth } from './provider-health.js';
import { OutlierDetector } from '../policy/outlier.js';
import { providerCredential, withCredentialQuery, type ProviderCredential } from './provider-credential.js';
import { BackendIdentities, IdentityFailure, withoutSpent } from '../auth/backend-identity.js';
import { ExtProcClients } from '../ext/ext-proc-client.js';
import { EndpointPicker, type PickedEndpoint, type PickerReport } from './endpoint-picker.js';
import { editAnswerHeaders, shapeProviderCall } from './provider-transformation.js';
import type { InferencePoolTarget } from '../../ir/types.js';
import { EMPTY_CATALOG, celModel, type ModelCatalog } from './model-catalog.js';
import { routeModelList } from './catalog-models.js';

/** Client credentials an endpoint picker is not shown: it chooses a Pod, it does not authenticate. */
const PICKER_HIDDEN = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key']);
import { requestCopy, type ExtAuthClient } from '../auth/ext-auth.js';
import { authorizeEdge } from '../auth/edge-ext-auth.js';

export interface LlmForwarderOptions {
  /** The proxy's workload identity, for providers with `tls.certificateSource: SPIFFE` (src/proxy/identity). */
  identity?: WorkloadIdentity;
  log: Logger;
  metrics: ProxyMetrics;
  /** Milliseconds now (provider backoff); injected by tests. */
  clock?: () => number;
  /** Uniform in [0, 1): the order of providers inside a group. */
  random?: () => number;
  connectTimeoutMs?: number;
  /** Wait for response headers when neither the route nor the provider sets a deadline. */
  headersTimeoutMs?: number;
  /** The proxy's environment (AWS keys, AZURE_AUTHORITY_HOST); process.env unless given. */
  env?: Record<string, string | undefined>;
  /** Most bytes of a streamed answer held for `openai.moderation`; default GUARDRAIL_STREAM_BUFFER_BYTES of `env`. */
  streamBufferBytes?: number;
  /** Exchanged and signed tokens, shared with the other edges so one cache serves them all. */
  identities?: BackendIdentities;
  /** Passive health state, shared with the other edges so one gauge shows it; one of its own unless given. */
  outliers?: OutlierDetector;
  /** How long an InferencePool's endpoint picker may take to answer, in ms (default 5000). */
  pickerTimeoutMs?: number;
  /** Asks a provider's own `backend.extAuth` before each try of it; a route with one fails closed without it. */
  extAuth?: ExtAuthClient;
  /** The model catalog in use (`/v1/models`, cost metrics, CEL `llm.model`); none unless given. */
  catalog?: () => ModelCatalog | undefined;
}

export interface LlmClient {
  /** Validated token claims; null for anonymous callers. */
  claims: Record<string, unknown> | null;
  /** The metadata of the API key the caller authenticated with (CEL `apiKey` of token exchange parameters and of GwModel authorization). */
  apiKey?: Record<string, unknown>;
  /** The client's Authorization header as it arrived (authentication may remove it from the request): `passthrough` sends it on. */
  authorization?: string;
  /** Told each answer's token usage (input + output): the route's `tokens` rate limits count it. */
  onTokens?: (tokens: number) => void;
  /**
   * The route's global rate limit when its descriptors name `llmRequest` or `llm`: asked once the body is read,
   * with those bindings; true when it answered the request (429 or 503).
   */
  checkLimits?: (body: CelBindings) => Promise<boolean>;
}

class Deadline extends Error {}
class ClientGone extends Error {}

type Failure =
  | {
      kind: 'status';
      provider: LlmProvider;
      status: number;
      body: Buffer;
      contentType: string;
      format: WireFormat;
      errorType: string;
    }
  | { kind: 'connect' | 'timeout'; provider: LlmProvider }
  | { kind: 'credential'; provider: LlmProvider; code: CloudAuthFailure['code']; message: string }
  | { kind: 'picker'; provider: LlmProvider; code: ErrorCode; message: string };

/** One request to one provider, and how a response that is not failed over answers the client. */
interface Call {
  /** The model label of metrics. */
  model: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: string | Buffer | null;
  /** The client's request headers: what an InferencePool's endpoint picker is shown (less credentials). */
  clientHeaders: IncomingHttpHeaders;
  /** The format of the provider's error bodies as the client should get them (Anthropic's are converted for chat). */
  errorFormat: WireFormat;
  answer(res: ServerResponse, up: UpstreamResponse): Promise<void>;
}

export class LlmForwarder {
  private readonly agent: Agent;
  private readonly tls: UpstreamTlsPool;
  private readonly dialers: UpstreamDialers;
  private readonly h2: H2Upstreams;
  private readonly health: ProviderHealth;
  private readonly usage: LlmUsage;
  private readonly moderation: ProviderModeration;
  /** Refusal lists already logged (one per GwModel per snapshot). */
  private readonly loggedRefusals: WeakSet<object>;
  private readonly clock: () => number;
  private readonly random: () => number;
  private readonly cloud: CloudAuth;
  private readonly identities: BackendIdentities;
  private readonly extProc: ExtProcClients;
  private readonly picker: EndpointPicker;

  constructor(private readonly opts: LlmForwarderOptions) {
    this.clock = opts.clock ?? Date.now;
    this.identities = opts.identities ?? new BackendIdentities(this.clock);
    this.cloud = new CloudAuth({ clock: this.clock, env: opts.env ?? process.env });
    this.random = opts.random ?? Math.random;
    this.health = new ProviderHealth(opts.outliers ?? new OutlierDetector(this.clock), this.random);
    this.usage = new LlmUsage(opts.metrics);
    this.moderation = new ProviderModeration(
      opts.log,
      opts.metrics,
      (route, p) => this.dispatcherOf(route, p),
      opts.streamBufferBytes ?? webhookPoolSettings(opts.env ?? process.env).streamBufferBytes,
    );
    this.loggedRefusals = new WeakSet();
    this.extProc = new ExtProcClients(opts.log);
    this.picker = new EndpointPicker(this.extProc, opts.pickerTimeoutMs ?? 5_000);
    const headersTimeout = opts.headersTimeoutMs ?? 300_000;
    // Streams may pause for long between tokens; only deadlines bound a response body.
    this.agent = new Agent({
      connect: { timeout: opts.connectTimeoutMs ?? 10_000 },
      headersTimeout,
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      connections: 1024,
    });
    this.tls = new UpstreamTlsPool({
      log: opts.log,
      ...(opts.identity ? { identity: opts.identity } : {}),
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: headersTimeout,
    });
    this.dialers = new UpstreamDialers({
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: headersTimeout,
    });
    this.h2 = new H2Upstreams({ connectTimeoutMs: opts.connectTimeoutMs ?? 10_000 });
  }

  async close(): Promise<void> {
    this.extProc.close();
    await Promise.all([this.agent.destroy(), this.tls.close(), this.dialers.close(), this.h2.close()]);
  }

  async handle(req: IncomingMessage, res: ServerResponse, route: LlmRoute, client: LlmClient): Promise<void> {
    const { path } = splitTarget(req.url);
    const refuse = (code: ErrorCode, description: string, headers: Record<string, string> = {}): void => {
      req.resume();
      sendError(res, code, description, headers);
    };
    if (route.unsupported) {
      // The compiled route belongs to one snapshot: logged once per snapshot.
      this.logOnce(
        route,
        { route: route.name, reason: route.unsupported },
        'LLM route cannot be served as configured; refusing its requests',
      );
      return refuse(route.unsupportedCode ?? 'provider_not_supported', `route ${route.name}: ${route.unsupported}`);
    }
    const type = routeTypeOf(route.routes, path);
    const catalog = this.catalog();
    const listing = route.models ? path.endsWith('/models') : catalog.size > 0 && type === 'AI_ROUTE_MODELS';
    if (req.method === 'GET' && listing) {
      // With a catalog the gateway answers from it; a GwModel route without one lists its exact model names.
      req.resume();
      const models = route.models;
      sendJson(res, 200, catalog.size === 0 && models ? modelList(models) : routeModelList(route, catalog));
      return;
    }
    const chat = type === 'AI_ROUTE_COMPLETIONS';
    if (type === 'AI_ROUTE_REALTIME')
      return refuse(
        'route_type_not_supported',
        `route ${route.name} maps ${path} to realtime, which this proxy does not serve yet`,
      );
    if (chat && req.method !== 'POST')
      return refuse('method_not_allowed', 'chat completions take POST', { allow: 'POST' });
    const limit = route.maxRequestBytes;
    if (Number(req.headers['content-length'] ?? '0') > limit)
      return refuse('payload_too_large', `the request body exceeds ${limit} bytes`, { connection: 'close' });
    // Bodies are buffered (bounded) so that a failed provider's request can go to the next one.
    const raw = await bufferBody(req, limit);
    if (raw === 'gone') return;
    if (raw === 'too_large')
      return refuse('payload_too_large', `the request body exceeds ${limit} bytes`, { connection: 'close' });
    let body: ChatBody = {};
    if (chat) {
      const checked = checkChatRequest(raw.toString('utf8'));
      if (!checked.ok) return refuse('invalid_request', `${checked.field} ${checked.message}`);
      body = checked.body;
    }
    if (route.models) {
      const chosen = this.withChosenModel(req, route, client, body, path);
      if ('error' in chosen) return refuse(chosen.error, chosen.message);
      route = chosen;
    }
    const abort = new CallAbort();
    const onClose = (): void => {
      if (!res.writableFinished) abort.abort(new ClientGone());
    };
    // `on`, not `once` (no wrapper per request): removed below either way, and a second abort is a no-op.
    // Before the deferred limit check, so a client that leaves while it waits is never sent on to a provider.
    res.on('close', onClose);
    let timer: NodeJS.Timeout | undefined;
    try {
      if (client.checkLimits && (await client.checkLimits(this.limitBindings(chat ? body : raw)))) return;
      if (abort.aborted) return;
      timer = route.deadlineMs > 0 ? setTimeout(() => abort.abort(new Deadline()), route.deadlineMs) : undefined;
      if (chat) await this.serve(req, res, route, client, { body, raw }, abort);
      else await this.servePlain(req, res, route, client, type, raw, abort);
    } finally {
      clearTimeout(timer);
      res.off('close', onClose);
    }
  }

  /** The route narrowed to the groups of the model the request names (GwModel routing), or why none serves it. */
  private withChosenModel(
    req: IncomingMessage,
    route: LlmRoute,
    client: LlmClient,
    body: ChatBody,
    path: string,
  ): LlmRoute | { error: ErrorCode; message: string } {
    if (!route.models) return route;
    if (typeof body.model !== 'string')
      return { error: 'invalid_request', message: 'model is required: it chooses the model on this route' };
    const request = { method: req.method ?? 'POST', path, headers: guardHeaders(req) };
    const choice = chooseModel(
      route.models,
      body.model,
      {
        ...(client.claims ? { jwt: client.claims } : {}),
        ...(client.apiKey ? { apiKey: client.apiKey } : {}),
        request,
        llmRequest: body,
        ...this.catalogBinding(body.model),
      },
      this.random,
    );
    if (choice.ok) return { ...route, groups: choice.groups };
    // The refusals array belongs to one compiled snapshot: logged once per snapshot and model.
    if (choice.refusals)
      this.logOnce(
        choice.refusals,
        { route: route.name, refusals: choice.refusals },
        'GwModel sets fields this proxy does not apply; refusing its requests',
      );
    return { error: choice.error, message: choice.message };
  }

  /** The model catalog in use; the empty one without a catalog. */
  private catalog(): ModelCatalog {
    return this.opts.catalog?.() ?? EMPTY_CATALOG;
  }

  /** CEL `llm.model` for `model` (its catalog entry, by `kind` when given); nothing without a catalog. */
  private catalogBinding(model: unknown, kind?: string): CelBindings {
    const catalog = this.catalog();
    if (catalog.size === 0 || typeof model !== 'string') return {};
    return { llm: { model: celModel(catalog.lookup(model, kind)) } };
  }

  /** CEL `llmRequest` (the body as the client sent it; a JSON object, else nothing) and `llm.model` of the model it asks for. */
  private limitBindings(body: ChatBody | Buffer): CelBindings {
    let json: unknown = body;
    if (Buffer.isBuffer(body))
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
    if (!isObject(json)) return {};
    return { llmRequest: json, ...this.catalogBinding(json.model) };
  }

  /** `bindings` with CEL `llm.model` for the model one provider is sent, when there is a catalog. */
  private withCatalogModel(bindings: CelBindings, p: LlmProvider, model: unknown): CelBindings {
    const llm = this.catalogBinding(model, p.kind);
    return llm.llm ? { ...bindings, ...llm } : bindings;
  }

  private logOnce(key: object, fields: Record<string, unknown>, message: string): void {
    if (this.loggedRefusals.has(key)) return;
    this.loggedRefusals.add(key);
    this.opts.log.error(fields, message);
  }

  /** Any route type but chat: the request goes unchanged (credential added) to a provider that serves the type. */
  private async servePlain(
    req: IncomingMessage,
    res: ServerResponse,
    route: LlmRoute,
    client: LlmClient,
    type: AiRouteType,
    raw: Buffer,
    signal: CallSignal,
  ): Promise<void> {
    const { path, query } = splitTarget(req.url);
    const pathOf = (p: LlmProvider): string | undefined =>
      type === 'AI_ROUTE_PASSTHROUGH'
        ? `${path}${query ? `?${query}` : ''}`
        : p.endpoint.apiPaths[type as PlainRouteType];
    const name = type.replace('AI_ROUTE_', '').toLowerCase();
    if (!route.groups.flat().some((p) => pathOf(p) !== undefined)) {
      sendError(
        res,
        'route_type_not_supported',
        `route ${route.name} maps ${path} to ${name}, which none of its providers serves`,
      );
      return;
    }
    const candidates = this.health.order(route.backend, route.groups).filter((p) => pathOf(p) !== undefined);
    if (candidates.length === 0) return this.noneHealthy(res, route);
    let model = '';
    try {
      const m = (JSON.parse(raw.toString('utf8') || '{}') as { model?: unknown }).model;
      if (typeof m === 'string') model = m;
    } catch {
      /* not JSON: no model label */
    }
    const failures: Failure[] = [];
    for (const p of candidates) {
      const tryReq = await this.authorizeTry(req, res, route, p, client, raw);
      if (!tryReq) return;
      const body = plainBody(p, raw, req, client, (model) => this.catalogBinding(model, p.kind));
      if (!Buffer.isBuffer(body)) return this.untransformed(res, route, p, body);
      const credential = await this.credential(res, p, client, req);
      if (!credential) return;
      const headers = providerHeaders(tryReq, p, credential);
      for (const h of ['content-type', 'accept'] as const) {
        const v = tryReq.headers[h];
        if (v) headers[h] = v;
      }
      if (body.length > 0) headers['content-length'] = String(body.length);
      const call: Call = {
        model,
        method: req.method ?? 'GET',
        path: withCredentialQuery(pathOf(p) ?? path, credential.query),
        headers,
        body: body.length > 0 ? body : null,
        clientHeaders: req.headers,
        errorFormat: 'openai',
        answer: async (out, up) => {
          out.writeHead(up.statusCode, withoutHopByHop(up.headers));
          if (String(up.headers['content-type'] ?? '').startsWith('text/event-stream')) out.flushHeaders();
          await pipeline(up.body, out);
        },
      };
      const sent = this.shapedCall(req, res, route, p, call, credential, client);
      if (!sent) return;
      const outcome = await this.attempt(res, route, p, sent, signal);
      if (outcome === 'done') return;
      if (signal.aborted) break;
      failures.push(outcome);
    }
    this.giveUp(res, route, failures, signal);
  }

  private noneHealthy(res: ServerResponse, route: LlmRoute): void {
    const retry = Math.ceil(this.health.nextRetryMs(route.backend, route.groups, this.clock()) / 1000);
    sendError(res, 'no_healthy_provider', `every provider of route ${route.name} failed recently; retry in ${retry}s`, {
      'retry-after': String(retry),
    });
  }

  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    route: LlmRoute,
    client: LlmClient,
    { body, raw }: { body: ChatBody; raw: Buffer },
    signal: CallSignal,
  ): Promise<void> {
    const candidates = this.health.order(route.backend, route.groups);
    if (candidates.length === 0) return this.noneHealthy(res, route);
    const guardCtx = guardContext(req, client, body);
    const tel = telemetryOf(res);
    if (tel) guardCtx.traceCall = (name) => tel.call(name);
    // Providers of one edge usually shape alike: a body the request guards already saw is not sent to them again.
    let guarded: { text: string; guards: LlmGuards; body: ChatBody } | undefined;
    const failures: Failure[] = [];
    let unshaped: string | undefined;
    const bindings = transformationBindings(guardCtx, client);
    for (const p of candidates) {
      const shaped = shapeChatRequest(body, p.edge, p.model);
      if (!shaped.ok) {
        // Another provider may set the model this request lacks.
        unshaped = `${shaped.field} ${shaped.message}`;
        continue;
      }
      const modelBindings = this.withCatalogModel(bindings, p, shaped.body.model);
      const transformed = transformedRequest(shaped.body, p, modelBindings);
      if (!transformed.ok) return this.untransformed(res, route, p, transformed);
      let clientBody = transformed.body;
      // A GwModel's own guards (model routes have no edge guards) or the edge's.
      const guards = p.guards ?? route.guards;
      if (guards?.request) {
        const text = JSON.stringify(clientBody);
        if (guarded?.text !== text || guarded.guards !== guards) {
          const verdict = await guards.request(clientBody, guardCtx);
          if (verdict.action === 'reject') return void sendVerdict(res, verdict);
          guarded = { text, guards, body: verdict.action === 'modify' ? verdict.body : clientBody };
        }
        clientBody = guarded.body;
      }
      const payload = providerPayload(p, clientBody, modelBindings);
      if (!payload.ok) return this.untransformed(res, route, p, payload);
      const tryReq = await this.authorizeTry(req, res, route, p, client, raw);
      if (!tryReq) return;
      const credential = await this.credential(res, p, client, req);
      if (!credential) return;
      if (p.moderation) {
        const refused = await this.moderation.input(res, route, p, clientBody, credential.headers, signal);
        if (refused) {
          sendError(res, refused.code, refused.message);
          return;
        }
      }
      const call = this.chatCall(
        route,
        p,
        clientBody,
        JSON.stringify(payload.body),
        providerHeaders(tryReq, p, credential),
        guardCtx,
        client,
        { credential, signal, clientHeaders: req.headers },
      );
      const sent = this.shapedCall(req, res, route, p, call, credential, client);
      if (!sent) return;
      const outcome = await this.attempt(res, route, p, sent, signal);
      if (outcome === 'done') return;
      if (signal.aborted) break;
      failures.push(outcome);
    }
    if (failures.length === 0 && unshaped && !signal.aborted) sendError(res, 'invalid_request', unshaped);
    else this.giveUp(res, route, failures, signal);
  }

  /** A transformation failed to evaluate: the request ends here, with the field named (never its value). */
  private untransformed(res: ServerResponse, route: LlmRoute, p: LlmProvider, failed: Failed): void {
    this.opts.log.warn(
      { route: route.name, provider: p.name, field: failed.field, reason: failed.message },
      'LLM field transformation failed; the request is not sent',
    );
    sendError(res, 'transformation_failed', `provider ${p.name}: ${failed.field} ${failed.message}`);
  }

  /**
   * The call with the provider's own `backend.transformation`: its request step applied and its response
   * step armed for the answer (provider-transformation.ts); undefined when an expression failed and the
   * client was answered (nothing was sent).
   */
  private shapedCall(
    req: IncomingMessage,
    res: ServerResponse,
    route: LlmRoute,
    p: LlmProvider,
    call: Call,
    credential: ProviderCredential,
    client: LlmClient,
  ): Call | undefined {
    const plan = p.shaping;
    if (!plan) return call;
    const failed = (message: string): undefined => {
      this.opts.log.warn(
        { route: route.name, provider: p.name, reason: message },
        'LLM provider transformation failed; the request is not sent',
      );
      sendError(res, 'transformation_failed', `provider ${p.name}: ${message}`);
      return undefined;
    };
    let out = call;
    if (plan.request) {
      try {
        out = shapeProviderCall(plan.request, call, credential, client, 'transformation.request');
      } catch (err) {
        if (err instanceof ProxyError) return failed(err.message);
        throw err;
      }
    }
    const step = plan.response;
    if (!step) return out;
    const answer = out.answer;
    return {
      ...out,
      answer: async (r, up) => {
        const problem = editAnswerHeaders(req, r, step, up, client, 'transformation.response');
        if (!problem) return answer(r, up);
        up.body.resume();
        failed(problem.message);
      },
    };
  }

  /** The provider's connections: its TLS, and the upstream dialer when a tunnel, TCP settings or ALPN ask for it. */
  private dispatcherOf(route: LlmRoute, p: LlmProvider): Dispatcher {
    const e = p.endpoint;
    const key = `${route.backend}/${p.name}`;
    const c = { tls: e.tls, tunnel: p.edge?.tunnel, tcp: p.edge?.tcp };
    if (needsDialer(c))
      return this.dialers.routed(
        key,
        e.host,
        dialPlan(c, (t) => this.tls.connectOptions(key, e.host, t)),
      );
    return e.tls ? this.tls.dispatcher(key, e.host, e.tls) : this.agent;
  }

  /**
   * The provider's own `backend.extAuth`, asked before this try: the request the try sends (a copy, so headers
   * one provider's service adds never reach another provider), or undefined when the client was answered.
   */
  private async authorizeTry(
    req: IncomingMessage,
    res: ServerResponse,
    route: LlmRoute,
    p: LlmProvider,
    client: LlmClient,
    raw: Buffer,
  ): Promise<IncomingMessage | undefined> {
    if (!p.extAuth) return req;
    return authorizeEdge(requestCopy(req, raw), res, {
      client: this.opts.extAuth,
      route: route.name,
      edge: `provider ${p.name}`,
      ext: p.extAuth,
      claims: client.claims,
      attributes: { 'gen_ai.provider.name': p.name },
    });
  }

  /** The provider's credential for this request; undefined when there is none to send, and the client was answered. */
  private async credential(
    res: ServerResponse,
    p: LlmProvider,
    client: LlmClient,
    req: IncomingMessage,
  ): Promise<ProviderCredential | undefined> {
    const c = await providerCredential(this.identities, p, client, req);
    if (typeof c === 'string') sendError(res, 'unauthorized', c, { 'www-authenticate': 'Bearer' });
    else if (c instanceof IdentityFailure) sendError(res, c.code, c.message);
    else return c;
    return undefined;
  }

  /** Where one answer's token counts go: the metrics (priced by the catalog) and the request's trace. */
  private usageOf(res: ServerResponse, p: LlmProvider, model: string): UsageSink {
    const tel = telemetryOf(res);
    tel?.llm(p.metricsProvider ?? p.name, model);
    const price = this.catalog().lookup(model, p.kind);
    // No wrapper per call when there is neither a trace nor a price to pass on.
    if (!tel && !price) return this.usage;
    return {
      tokens: (provider, m, u) => {
        this.usage.tokens(provider, m, u, price);
        if (u) tel?.tokens(u);
      },
    };
  }

  /** The chat-completions call to one provider: converted for its format, answered in the client's. */
  private chatCall(
    route: LlmRoute,
    p: LlmProvider,
    clientBody: ChatBody,
    payload: string,
    headers: Record<string, string | string[]>,
    guardCtx: GuardRequestContext,
    client: LlmClient,
    moderation: { credential: ProviderCredential; signal: CallSignal; clientHeaders: IncomingHttpHeaders },
  ): Call {
    const e = p.endpoint;
    const model = String(clientBody.model);
    const stream = clientBody.stream === true;
    const streamType = e.format === 'bedrock' ? EVENT_STREAM : 'text/event-stream';
    return {
      model,
      method: 'POST',
      path: withCredentialQuery(e.chatPath ? e.chatPath(model, stream) : e.path, moderation.credential.query),
      body: payload,
      clientHeaders: moderation.clientHeaders,
      errorFormat: e.format,
      // `headers` is this call's own object (built per provider): set in place rather than copied.
      headers: Object.assign(headers, {
        'content-type': 'application/json',
        accept: stream ? streamType : 'application/json',
        'accept-encoding': 'identity',
        'content-length': String(Buffer.byteLength(payload)),
      }),
      answer: async (res, up) => {
        const contentType = String(up.headers['content-type'] ?? '');
        if (up.statusCode >= 400) {
          const buf = await readBounded(up.body, MAX_RESPONSE_BYTES);
          relayError(
            res,
            up.statusCode,
            e.format,
            buf === 'too_large' ? Buffer.alloc(0) : buf,
            contentType,
            errorTypeOf(up.headers),
          );
          return;
        }
        const usage = this.usageOf(res, p, model);
        const answer: Answer = {
          id: e.format === 'bedrock' ? `chatcmpl-${randomUUID()}` : '',
          provider: p.metricsProvider ?? p.name,
          model,
          format: e.format,
          nowSeconds: Math.floor(this.clock() / 1000),
          usage: usageSink(usage, client.onTokens),
          guardCtx,
        };
        const guards = this.moderation.answerGuards(res, route, p, {
          credential: moderation.credential.headers,
          signal: moderation.signal,
          stream,
        });
        if (guards) answer.guards = guards;
        const includeUsage = isObject(clientBody.stream_options) && clientBody.stream_options.include_usage === true;
        if (stream && e.format === 'bedrock' && contentType.startsWith(EVENT_STREAM)) {
          await relayEventStream(res, up.statusCode, up.body, answer, includeUsage);
        } else if (stream && contentType.startsWith('text/event-stream')) {
          await relayStream(res, up.statusCode, up.body, answer, includeUsage);
        } else {
          await relayBuffered(res, up.statusCode, up.body, answer);
        }
      },
    };
  }

  /** One try: 'done' once the client got an answer from this provider, else why to go on to the next one. */
  private async attempt(
    res: ServerResponse,
    route: LlmRoute,
    p: LlmProvider,
    call: Call,
    signal: CallSignal,
  ): Promise<'done' | Failure> {
    const tryMs = route.tryDeadlineMs || p.requestTimeoutMs;
    // A try with its own deadline gets its own signal; otherwise the request's (the same reasons reach it).
    const attempt = tryMs > 0 ? new CallAbort() : undefined;
    const onAbort = (): void => attempt?.abort(signal.reason);
    if (attempt && signal.aborted) onAbort();
    else if (attempt) signal.addEventListener('abort', onAbort, { once: true });
    const timer = attempt ? setTimeout(() => attempt.abort(new Deadline()), tryMs) : undefined;
    const trySignal: CallSignal = attempt ?? signal;
    let started = false;
    const t0 = this.clock();
    let report: PickerReport | undefined;
    try {
      let fallbacks: PickedEndpoint[] = [];
      if (p.pool) {
        const at = await this.picked(route, p, call);
        if ('kind' in at) return at;
        [p, call, fallbacks, report] = [at.p, at.call, at.fallbacks, at.report];
      }
      const sent = await this.sendPicked(res, route, p, call, trySignal, fallbacks);
      const up = sent.up;
      if (!('statusCode' in up)) return up;
      p = sent.p;
      // The picker's response phase runs beside the answer; it never holds the client up.
      report?.served(p.endpoint, up.statusCode, up.headers).catch(() => undefined);
      report = undefined;
      this.usage.request(p.metricsProvider ?? p.name, call.model, String(up.statusCode));
      this.health.answered(route.backend, p, route.groups, up, this.clock() - t0, this.clock());
      if (up.statusCode >= 500 || up.statusCode === 429) return await this.failedStatus(route, p, call, up);
      started = true;
      await call.answer(res, up);
      return 'done';
    } catch (err) {
      if (started || res.headersSent) return this.brokeOff(res, route, p, signal, err);
      return this.unreachable(route, p, call, signal, trySignal, err);
    } finally {
      report?.close();
      clearTimeout(timer);
      if (attempt) signal.removeEventListener('abort', onAbort);
    }
  }

  /** A picked InferencePool endpoint that refuses the connection gives way to the picker's fallbacks, in order. */
  private async sendPicked(
    res: ServerResponse,
    route: LlmRoute,
    p: LlmProvider,
    call: Call,
    signal: CallSignal,
    fallbacks: readonly PickedEndpoint[],
  ): Promise<{ p: LlmProvider; up: UpstreamResponse | Failure }> {
    for (const next of fallbacks) {
      try {
        return { p, up: await this.send(res, route, p, call, signal) };
      } catch (err) {
        if (signal.aborted || !CONNECT_FAILURES.has(codeOf(err))) throw err;
        const upstream = `${p.endpoint.host}:${p.endpoint.port}`;
        this.opts.log.warn(
          { route: route.name, provider: p.name, upstream, code: codeOf(err) },
          "InferencePool endpoint unreachable; trying the picker's next endpoint",
        );
        p = { ...p, endpoint: { ...p.endpoint, host: next.host, port: next.port } };
      }
    }
    return { p, up: await this.send(res, route, p, call, signal) };
  }

  /** The provider at the InferencePool endpoint its picker chose (with the body the picker sent back), or why none. */
  private async picked(
    route: LlmRoute,
    p: LlmProvider,
    call: Call,
  ): Promise<{ p: LlmProvider; call: Call; fallbacks: PickedEndpoint[]; report?: PickerReport } | Failure> {
    const pool = p.pool as InferencePoolTarget;
    const e = p.endpoint;
    const body = call.body === null ? Buffer.alloc(0) : Buffer.from(call.body);
    const headers = Object.fromEntries(
      Object.entries(call.clientHeaders).filter(([k]) => !PICKER_HIDDEN.has(k)),
    ) as IncomingHttpHeaders;
    const picked = await this.picker.pick(pool, {
      method: call.method,
      path: call.path,
      authority: e.host,
      headers,
      body,
    });
    if (!picked.ok) {
      this.opts.log.warn(
        { route: route.name, provider: p.name, reason: picked.message },
        'InferencePool endpoint not picked',
      );
      return { kind: 'picker', provider: p, code: picked.code, message: picked.message };
    }
    const next = picked.body
      ? { ...call, body: picked.body, headers: { ...call.headers, 'content-length': String(picked.body.length) } }
      : call;
    return {
      p: { ...p, endpoint: { ...e, host: picked.host, port: picked.port } },
      call: next,
      fallbacks: picked.fallbacks,
      ...(picked.report ? { report: picked.report } : {}),
    };
  }

  /** The call to the provider, with its cloud credential (signed) and the request's trace context. */
  private send(
    res: ServerResponse,
    route: LlmRoute,
    p: LlmProvider,
    call: Call,
    signal: CallSignal,
  ): Promise<UpstreamResponse | Failure> {
    const kind = p.edge?.credential?.kind;
    // Keys and passthrough tokens are already in the call's headers: no cloud step (and no await) for them.
    if (kind !== 'aws' && kind !== 'azure' && kind !== 'gcp') return this.request(res, route, p, call, signal);
    return this.cloudHeaders(route, p, call).then<UpstreamResponse | Failure>(
      (cloud): Failure | Promise<UpstreamResponse> =>
        cloud instanceof CloudAuthFailure
          ? { kind: 'credential', provider: p, code: cloud.code, message: cloud.message }
          : this.request(res, route, p, call, signal, cloud),
    );
  }

  /** The cloud credential's headers (a SigV4 signature, a bearer token), or why there are none. */
  private async cloudHeaders(
    route: LlmRoute,
    p: LlmProvider,
    call: Call,
  ): Promise<Record<string, string> | CloudAuthFailure | undefined> {
    const e = p.endpoint;
    const https = e.tls !== undefined;
    const authority = e.port === (https ? 443 : 80) ? hostHeader(e.host) : `${hostHeader(e.host)}:${e.port}`;
    const signable = {
      method: call.method,
      authority,
      path: call.path,
      contentType: headerText(call.headers['content-type']),
      body: call.body,
    };
    const cloud = await this.cloud.headers(p.edge?.credential, signable, e.signing, `provider ${p.name}`);
    if (cloud instanceof CloudAuthFailure)
      this.opts.log.warn(
        { route: route.name, provider: p.name, reason: cloud.message },
        'LLM provider credential unavailable; trying the next one',
      );
    return cloud;
  }

  private request(
    res: ServerResponse,
    route: LlmRoute,
    p: LlmProvider,
    call: Call,
    signal: CallSignal,
    cloud?: Record<string, string>,
  ): Promise<UpstreamResponse> {
    const e = p.endpoint;
    const trace = telemetryOf(res)?.upstreamHeaders();
    // The call's headers are its own (built per provider): completed in place rather than copied.
    const headers = Object.assign(signedOnly(call.headers, p), cloud, trace);
    const origin = `${e.tls !== undefined ? 'https' : 'http'}://${e.host}:${e.port}`;
    // `http.version: HTTP2`: the HTTP/2 client of HTTP backends, dialled by the same plan as HTTP/1.1.
    if (p.edge?.httpVersion === 'HTTP2') {
      const key = `${route.backend}/${p.name}`;
      const plan = dialPlan({ tls: e.tls, tunnel: p.edge.tunnel, tcp: p.edge.tcp }, (t) =>
        this.tls.connectOptions(key, e.host, t),
      );
      const body = typeof call.body === 'string' ? Buffer.from(call.body) : call.body;
      const h2Call = { origin, path: call.path, method: call.method, signal, headers, body };
      return this.h2.request(planKey(key, origin, plan), h2Call, plan);
    }
    return this.dispatcherOf(route, p).request({
      origin,
      path: call.path,
      method: call.method as Dispatcher.HttpMethod,
      signal,
      headers,
      body: call.body,
    });
  }

  /** A 5xx or 429: the next provider is tried and this answer kept, in case no other provider answers. */
  private async failedStatus(route: LlmRoute, p: LlmProvider, call: Call, up: UpstreamResponse): Promise<Failure> {
    const buf = await readBounded(up.body, MAX_RESPONSE_BYTES);
    this.opts.log.warn(
      { route: route.name, provider: p.name, status: up.statusCode },
      'LLM provider failed; trying the next one',
    );
    return {
      kind: 'status',
      provider: p,
      status: up.statusCode,
      body: buf === 'too_large' ? Buffer.alloc(0) : buf,
      contentType: String(up.headers['content-type'] ?? ''),
      format: call.errorFormat,
      errorType: errorTypeOf(up.headers),
    };
  }

  /** Once the status reached the client no other provider may answer: the cut connection tells it the body is incomplete. */
  private brokeOff(res: ServerResponse, route: LlmRoute, p: LlmProvider, signal: CallSignal, err: unknown): 'done' {
    if (!(signal.reason instanceof ClientGone))
      this.opts.log.warn({ route: route.name, provider: p.name, code: codeOf(err) }, 'LLM provider response broke off');
    if (res.headersSent) res.destroy();
    else if (signal.reason instanceof Deadline)
      sendError(res, 'gateway_timeout', `provider ${p.name} did not finish its response in time`);
    else sendError(res, 'bad_gateway', `provider ${p.name} broke off its response`);
    return 'done';
  }

  /** No answer at all (connect failure, TLS, timeout): counted, marked failed unless the client left, and logged. */
  private unreachable(
    route: LlmRoute,
    p: LlmProvider,
    call: Call,
    signal: CallSignal,
    attempt: CallSignal,
    err: unknown,
  ): Failure {
    const e = p.endpoint;
    const timedOut = attempt.reason instanceof Deadline || codeOf(err) === 'UND_ERR_HEADERS_TIMEOUT';
    this.usage.request(p.metricsProvider ?? p.name, call.model, timedOut ? 'timeout' : 'connect');
    if (signal.aborted) return { kind: timedOut ? 'timeout' : 'connect', provider: p };
    this.health.failed(route.backend, p, route.groups);
    const tlsReason = e.tls ? this.tls.failureReason(err) : undefined;
    this.opts.log.warn(
      {
        route: route.name,
        provider: p.name,
        upstream: `${e.host}:${e.port}`,
        code: codeOf(err),
        ...(tlsReason ? { tls: tlsReason } : {}),
      },
      'LLM provider unreachable; trying the next one',
    );
    return { kind: timedOut ? 'timeout' : 'connect', provider: p };
  }

  /** Every provider failed before answering: the last one's status and body, or what kept them all from answering. */
  private giveUp(res: ServerResponse, route: LlmRoute, failures: Failure[], signal: CallSignal): void {
    if (signal.reason instanceof ClientGone) return;
    if (signal.reason instanceof Deadline) {
      sendError(res, 'gateway_timeout', `route ${route.name}: no provider answered within the request timeout`);
      return;
    }
    const last = failures[failures.length - 1];
    if (last?.kind === 'status') {
      relayError(res, last.status, last.format, last.body, last.contentType, last.errorType);
      return;
    }
    if (last?.kind === 'credential' || last?.kind === 'picker') {
      sendError(res, last.code, last.message);
      return;
    }
    const tried = failures.map((f) => `${f.provider.name} (${f.kind})`).join(', ');
    if (last?.kind === 'timeout')
      sendError(res, 'gateway_timeout', `route ${route.name}: providers did not answer in time: ${tried}`);
    else sendError(res, 'no_healthy_provider', `route ${route.name}: no provider could be reached: ${tried}`);
  }
}

/** What field transformations may read besides the body (`request`, `jwt`, `apiKey`): the guards' view of the request. */
function transformationBindings(guardCtx: GuardRequestContext, client: LlmClient): CelBindings {
  return {
    request: guardCtx.request as unknown as Record<string, unknown>,
    ...(client.claims ? { jwt: client.claims } : {}),
    ...(client.apiKey ? { apiKey: client.apiKey } : {}),
  };
}

/**
 * The body of a request of another route type (embeddings, responses, passthrough, ...) for one provider: as
 * it came, or, when the provider has field transformations, the JSON body with both lists applied in turn
 * (nothing is converted on these routes). A body that is not a JSON object cannot be transformed: refused.
 */
function plainBody(
  p: LlmProvider,
  raw: Buffer,
  req: IncomingMessage,
  client: LlmClient,
  llm: (model: unknown) => CelBindings,
): Buffer | Failed {
  const t = p.transformations;
  if (!t) return raw;
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    body = undefined;
  }
  if (!isObject(body))
    return { ok: false, field: 'transformations', message: 'need a JSON object body; this request has none' };
  const bindings = { ...transformationBindings(guardContext(req, client, body), client), ...llm(body.model) };
  const before = applyTransformations(body, t.before, bindings, 'transformations');
  if (!before.ok) return before;
  const after = applyTransformations(before.body, t.after, bindings, 'finalTransformations');
  return after.ok ? Buffer.from(JSON.stringify(after.body)) : after;
}

type Failed = Extract<Checked, { ok: false }>;

/** A request guard's rejection, as it is. */
/** The shaped chat request with the provider's `transformations` applied; they must leave a model. */
function transformedRequest(shaped: ChatBody, p: LlmProvider, bindings: CelBindings): Checked {
  const out = applyTransformations(shaped, p.transformations?.before ?? [], bindings, 'transformations');
  if (out.ok && (typeof out.body.model !== 'string' || out.body.model === ''))
    return { ok: false, field: 'transformations field model', message: 'left no model' };
  return out;
}

/**
 * The body one provider gets, in its format: converted (Anthropic, Bedrock Converse), with cache breakpoints
 * (`promptCaching`), then `finalTransformations` over the result; or the transformation that failed.
 */
function providerPayload(p: LlmProvider, clientBody: ChatBody, bindings: CelBindings): Checked {
  const e = p.endpoint;
  if (e.format === 'openai')
    return applyTransformations(clientBody, p.transformations?.after ?? [], bindings, 'finalTransformations');
  if (e.format === 'cohere')
    return applyTransformations(
      toCohereRequest(clientBody),
      p.transformations?.after ?? [],
      bindings,
      'finalTransformations',
    );
  const converted =
    e.format === 'anthropic' ? toAnthropicRequest(clientBody) : toConverseRequest(clientBody, e.guardrail);
  placeCacheBreakpoints(converted, p.edge?.promptCaching, e.format, String(clientBody.model));
  return applyTransformations(converted, p.transformations?.after ?? [], bindings, 'finalTransformations');
}

/** What prompt guards may read about the request; its headers are copied only when a guard reads them (most routes have none). */
function guardContext(req: IncomingMessage, client: LlmClient, body: ChatBody): GuardRequestContext {
  const request = { method: req.method ?? 'POST', path: splitTarget(req.url).path, host: req.headers.host ?? '' };
  Object.defineProperty(request, requestKey, { value: req });
  Object.defineProperty(request, 'headers', lazyHeaders);
  return {
    request: request as GuardRequestContext['request'],
    ...(client.claims ? { jwt: client.claims } : {}),
    llmRequest: body,
  };
}

// One getter for every call's context, not one written in the literal: that would be a new closure and
// hidden class per call, which V8 keeps in the old generation with the request it reaches (see Call in
// mcp/endpoint.ts). A plain object still, as CEL takes no class instances.
const requestKey = Symbol('gw.request');
const lazyHeaders: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: { [requestKey]: IncomingMessage }): Record<string, string> {
    const headers = guardHeaders(this[requestKey]);
    Object.defineProperty(this, 'headers', { value: headers, enumerable: true });
    return headers;
  },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Connection failures after which an InferencePool picker's next endpoint is tried. */
const CONNECT_FAILURES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function codeOf(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  return String(e?.code ?? e?.cause?.code ?? '');
}

/**
 * What the provider is sent: the client's headers without its spent tokens, changed by the provider's header
 * modifier (GwModel `policies.headers`, the code of `traffic.headerModifiers`), then the credential on top.
 */
function providerHeaders(
  req: IncomingMessage,
  p: LlmProvider,
  credential: { headers: Record<string, string>; spent: readonly string[] },
): Record<string, string | string[]> {
  const client = withoutSpent(upstreamHeaders(req.headers), credential.spent);
  const changed = p.requestHeaders ? withoutHopByHop(applyHeaderModifier(client, p.requestHeaders)) : client;
  return { ...changed, ...credential.headers };
}
