// Reverse proxy for routes whose backends are plain HTTP (`static`, `a2a`, and `dynamicForwardProxy`,
// whose destination is each request's Host): one keep-alive pool per backend origin, request and
// response bodies streamed as they come (SSE and chunked responses flow), Gateway API weights per
// request, route timeouts as one deadline. `aws.agentCore` backends are forwarded the same way as signed
// InvokeAgentRuntime calls (agentcore.ts). Behaviour: docs/proxy.md "HTTP backends", "Dynamic forward proxy",
// "AWS AgentCore backends".
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { isIP, type BlockList } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { Agent } from './undici.js';
import type { AiCredential__Output as AiCredential } from '../../ir/gen/gw/ir/v1/AiCredential.js';
import type {
  Backend,
  BackendRef,
  BackendTls,
  HeaderModifier,
  PathMatch,
  Route,
  Transformation as IrTransformation,
} from '../../ir/types.js';
import { upstreamRequestHeaders, withoutHopByHop } from './forward-headers.js';
import { sendError, sendProxyError } from './http-error.js';
import { ProxyError } from '../proxy-error.js';
import type { ProxyMetrics } from '../metrics.js';
import {
  applyHeaderModifier,
  originPath,
  pathMatchesOf,
  rewriteTarget,
  schemeOf,
  type HeaderMap,
  type RouteFilters,
} from './route-filters.js';
import { bufferBody, errorCode, failureKind, mayRetry, retryDelayMs, sleep } from '../policy/retry.js';
import { allowList } from '../net/public-address.js';
import {
  OutlierDetector,
  outlierSettings,
  retryAfterMs,
  unhealthyAnswer,
  type OutlierSettings,
} from '../policy/outlier.js';
import { parseEndpoint } from '../net/endpoint.js';
import {
  destinationNotAllowed,
  destinationOf,
  hasAccessControl,
  isSelf,
  localAddresses,
  refusedDestination,
  resolveHost,
  viaHas,
  viaWith,
  type Resolve,
} from './dynamic-forward.js';
import {
  routeTimeouts,
  type BufferPlan,
  type DelayPlan,
  type RetryPlan,
  type TrafficPlan,
} from '../policy/traffic-policy.js';
import { delayMs } from '../policy/delay.js';
import { compileTransformation, type TransformPlan, type TransformStep } from '../policy/transformation.js';
import {
  DEFAULT_TRANSFORM_RESPONSE_BYTES,
  requestBodyRead,
  responseSteps,
  transformAnswer,
  transformRequest,
} from './transform-forward.js';
import { bufferResponse } from '../policy/buffer.js';
import type { WorkloadIdentity } from '../identity/workload-identity.js';
import { UpstreamTlsPool } from './upstream-tls.js';
import { agentCoreCall, agentCoreTargetOf, type AgentCoreTarget } from './agentcore.js';
import { CONNECTION_SPECIFIC } from './h2-compat.js';
import { H2Upstreams, type UpstreamRequest, type UpstreamResponse } from './h2-upstream.js';
import { caseOf, recased } from './header-case.js';
import { casedRequest, clientHeaders } from './cased-request.js';
import { CloudAuth, CloudAuthFailure } from '../llm/cloud-auth.js';
import { MissingClientToken, withCredential } from '../backend-auth.js';
import { pooledTlsFetch } from '../auth/jwks-fetch.js';
import { BackendIdentities, IdentityFailure, isIdentity, type Caller } from '../auth/backend-identity.js';
import { flatHeaders } from '../mcp/request.js';
import { compileExtAuth, type ExtAuthClient, type ExtAuthRoute } from '../auth/ext-auth.js';
import { authorizeEdge } from '../auth/edge-ext-auth.js';
import type { TunnelDialer } from './tunnel-dialer.js';
import type { AnswerHook } from '../ext/ext-proc-answer.js';
import {
  TunnelRefused,
  UpstreamDialers,
  needsDialer,
  absoluteForm,
  proxyName,
  dialPlan,
  planKey,
  type DialPlan,
  type UpstreamConnection,
  type UpstreamTcp,
  type UpstreamTunnel,
} from './upstream-dial.js';

export interface ForwardTarget {
  /** IR backend name: the label of metrics and the name in error bodies. */
  backend: string;
  host: string;
  port: number;
  weight: number;
  /**
   * One ready Pod of a Service (StaticBackend.endpoints): its IP is dialled at `port` while `host` stays the
   * Service's name (the TLS name); passive health counts it on its own (`memberOf`).
   */
  endpoint?: string;
  /** Set when the edge asks for TLS (`backend.tls`): the request goes to `https://host:port`. */
  tls?: BackendTls;
  /** A `dynamicForwardProxy` backend: `host` and `port` are empty and each request's Host names them. */
  dynamic?: true;
  /** A dynamic backend's `allowedDestinations`: ranges it may reach that are refused by default. */
  allowed?: BlockList;
  /** An `aws.agentCore` backend: each try is a signed InvokeAgentRuntime call on a buffered body. */
  agentCore?: AgentCoreTarget;
  /** GwPolicy `backend.auth` of the edge (backend-auth.ts); `key` is secret. */
  credential?: AiCredential;
  /** `backend.http.version: HTTP2`: HTTP/2 upstream (prior knowledge on http, ALPN h2 on https). */
  h2?: true;
  /** `backend.tunnel`: connections go through this forward proxy (upstream-dial.ts). */
  tunnel?: UpstreamTunnel;
  /** `backend.tcp`: connect timeout and keepalive of this edge's connections. */
  tcp?: UpstreamTcp;
  /** `backend.http.requestTimeout` (ms): each try's deadline when the route sets no `timeouts.backendRequest`. */
  requestTimeoutMs?: number;
  /** `backend.health`: this target is ejected from the route's choice after failures in a row. */
  health?: OutlierSettings;
  /** `backend.transformation` of this edge: after the route's request step, before its response step. */
  transformation?: TransformPlan;
  /** `backend.extAuth` of this edge (the route's edges differ): asked once the weighted pick chose it. */
  extAuth?: ExtAuthRoute;
}

export interface ForwardRoute {
  name: string;
  targets: ForwardTarget[];
  /** The whole request, retries included (`timeouts.request`), in ms; 0 means no deadline. */
  deadlineMs: number;
  /** Each try to a backend, until its response is fully received (`timeouts.backendRequest`); 0 means none. */
  tryDeadlineMs: number;
  /** GwPolicy `traffic.retry`; a request with a body is then buffered so it can be sent again. */
  retry?: RetryPlan;
  /** GwPolicy `traffic.headerModifiers.request`; runs before the route's own RequestHeaderModifier. */
  policyRequestHeaders?: HeaderModifier;
  /** GwPolicy `traffic.delay`: waited before the first try, inside the request deadline. */
  delay?: DelayPlan;
  /** GwPolicy `traffic.hostRewrite`: the Host the backend sees (a URLRewrite hostname still wins). */
  hostRewrite?: string;
  /** GwPolicy `traffic.buffer.response`. */
  responseBuffer?: BufferPlan;
  /** GwPolicy `traffic.transformation`: its request step runs once per request, before the first try. */
  transformation?: TransformPlan;
  maxRequestBytes: number;
  /** The route's filters (request headers and URL rewrite run here) and the matches a prefix rewrite needs. */
  filters: RouteFilters | null;
  matches: PathMatch[];
  /** A dynamic forward proxy target on a route whose policy restricts nobody: warned about when applied. */
  openProxy?: boolean;
  /** Backend names of the targets that set `health`: the members of the route's ejection pool. */
  healthPool?: string[];
  /** A backend of the route is an A2A agent: its calls are read and its cards rewritten (src/proxy/a2a). */
  a2a?: true;
}

export interface ForwarderOptions {
  log: Logger;
  metrics: ProxyMetrics;
  /** The proxy's workload identity, for `certificateSource: SPIFFE` backends (src/proxy/identity). */
  identity?: WorkloadIdentity;
  /** Uniform in [0, 1): the weighted pick. Injected so tests can pin it. */
  random?: () => number;
  connectTimeoutMs?: number;
  /** Wait for response headers when the route sets no deadline. */
  headersTimeoutMs?: number;
  /** Ports this proxy listens on: a dynamic forward proxy destination on one of them, on this machine, is a loop. */
  selfPorts?: () => Iterable<number>;
  /** Host name → the address connected to (dynamic forward proxy); default the system resolver. */
  resolve?: Resolve;
  /** The proxy's environment: AWS_* keys and GW_AGENTCORE_ENDPOINT for AgentCore backends; default process.env. */
  env?: Record<string, string | undefined>;
  /** Milliseconds now, for SigV4 signatures and ejections; default Date.now. */
  clock?: () => number;
  /** Passive health state, shared with the other edges so one gauge shows it; one of its own unless given. */
  outliers?: OutlierDetector;
  /** Asks an edge's own `backend.extAuth`; a route with one fails closed without it. */
  extAuth?: ExtAuthClient;
}

/**
 * An AgentCore call's dial plan: AWS's own TLS (the system's roots, the endpoint's host name) on https, plain
 * (h2c on HTTP/2 edges) on an http endpoint (GW_AGENTCORE_ENDPOINT); `backend.tls` never applies to AgentCore.
 * The edge's tunnel and TCP settings apply as on other edges; to an https endpoint the tunnel always CONNECTs
 * (Auto's rule for TLS upstreams, which `absoluteForm` would otherwise read from `backend.tls`).
 */
function agentCorePlan(target: ForwardTarget, origin: string): DialPlan {
  const url = new URL(origin);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const https = url.protocol === 'https:';
  const t = target.tunnel;
  return {
    ...(https ? { tls: { servername: isIP(host) ? '' : host } } : {}),
    ...(t ? { tunnel: https ? { ...t, connectAlways: true } : t } : {}),
    ...(target.tcp ? { tcp: target.tcp } : {}),
  };
}

/** The address a backend kind is forwarded to, or undefined for kinds this forwarder does not serve. */
export function httpAddressOf(b: Backend | undefined): { host: string; port: number } | undefined {
  if (b?.kind === 'static' && b.static) return b.static;
  // A2A agents are forwarded to at host:port; the pipeline's `a2a` stage reads their calls and cards.
  if (b?.kind === 'a2a' && b.a2a) return b.a2a;
  return undefined;
}

/** The forwarding plan of a route whose backends are HTTP kinds; undefined when none of them is. */
export function forwardRouteOf(
  route: Route,
  backends: Map<string, Backend>,
  maxRequestBytes: number,
  traffic?: TrafficPlan,
): ForwardRoute | undefined {
  const targets: ForwardTarget[] = [];
  for (const ref of route.backends) {
    const b = backends.get(ref.backend);
    const credential = ref.credential ? { credential: ref.credential } : {};
    const edge = {
      ...(ref.tls ? { tls: ref.tls } : {}),
      ...credential,
      ...(ref.httpVersion === 'HTTP2' ? { h2: true as const } : {}),
      ...(ref.tunnel ? { tunnel: ref.tunnel } : {}),
      ...(ref.tcp ? { tcp: ref.tcp } : {}),
      ...(ref.requestTimeoutMs > 0 ? { requestTimeoutMs: ref.requestTimeoutMs } : {}),
      ...edgeTransformation(ref.transformation),
      ...edgeExtAuth(ref.extAuthorization),
    };
    const addr = httpAddressOf(b);
    const health = outlierSettings(ref.health);
    if (addr) {
      const one = { backend: ref.backend, host: addr.host, port: addr.port, weight: ref.weight, ...edge };
      targets.push(...perEndpoint({ ...one, ...(health ? { health } : {}) }, b?.static?.endpoints ?? []));
    } else if (b?.kind === 'dynamicForwardProxy') {
      const allowed = allowList(b.dynamicForwardProxy?.allowedDestinations ?? []);
      targets.push({ backend: ref.backend, host: '', port: 0, weight: ref.weight, dynamic: true, allowed, ...edge });
    } else if (b?.kind === 'aws' && b.aws) {
      // An ARN that cannot be invoked is refused by checkSnapshot before this runs; AWS's own TLS, not backend.tls.
      const core = agentCoreTargetOf(b.aws);
      if (typeof core === 'object')
        targets.push({
          backend: ref.backend,
          host: core.host,
          port: 443,
          weight: ref.weight,
          agentCore: core,
          ...credential,
          ...(ref.httpVersion === 'HTTP2' ? { h2: true as const } : {}),
          ...(ref.tunnel ? { tunnel: ref.tunnel } : {}),
          ...(ref.tcp ? { tcp: ref.tcp } : {}),
          ...(ref.requestTimeoutMs > 0 ? { requestTimeoutMs: ref.requestTimeoutMs } : {}),
          ...(health ? { health } : {}),
        });
    }
  }
  const only = targets[0];
  if (!only) return undefined;
  // The IR's rule: a lone ref with weight 0 is treated as 1 (each of its endpoints alike).
  if (route.backends.length === 1 && only.weight === 0) for (const x of targets) x.weight = 1;
  const t = routeTimeouts(route, traffic);
  const healthPool = targets.filter((x) => x.health).map(memberOf);
  return {
    name: route.name,
    ...(healthPool.length > 0 ? { healthPool } : {}),
    targets,
    deadlineMs: t?.requestMs ?? 0,
    tryDeadlineMs: t?.backendRequestMs ?? 0,
    maxRequestBytes,
    filters: route.filters,
    matches: pathMatchesOf(route),
    retry: traffic?.retry,
    policyRequestHeaders: traffic?.requestHeaders,
    ...trafficExtras(traffic, maxRequestBytes),
    ...(targets.some((t) => t.dynamic) && !hasAccessControl(route) ? { openProxy: true } : {}),
    ...(route.backends.some((r) => backends.get(r.backend)?.kind === 'a2a') ? { a2a: true as const } : {}),
  };
}

/**
 * A Service edge with known ready endpoints becomes one target per endpoint, sharing the edge's weight, so
 * the proxy balances over the Pods and ejects each on its own (Envoy's EDS). Through a tunnel the forward
 * proxy dials the Service's name, as before.
 */
function perEndpoint(target: ForwardTarget, endpoints: readonly string[]): ForwardTarget[] {
  const parsed = target.tunnel ? [] : endpoints.flatMap((e) => parseEndpoint(e) ?? []);
  if (parsed.length === 0) return [target];
  return parsed.map(({ address, port }) => ({
    ...target,
    port,
    endpoint: address,
    weight: target.weight / parsed.length,
  }));
}

/** A target's name in its route's ejection pool: the backend, or the backend and the Pod it is one of. */
export function memberOf(t: ForwardTarget): string {
  return t.endpoint ? `${t.backend} ${isIP(t.endpoint) === 6 ? `[${t.endpoint}]` : t.endpoint}:${t.port}` : t.backend;
}

/** The traffic settings only forwarded routes act on; `buffer.request` FailOpen streams an oversize body on (not with retry, which must hold it). */
function trafficExtras(t: TrafficPlan | undefined, maxRequestBytes: number): Partial<ForwardRoute> {
  if (!t) return {};
  return {
    ...(t.delay ? { delay: t.delay } : {}),
    ...(t.hostRewrite ? { hostRewrite: t.hostRewrite } : {}),
    ...(t.responseBuffer ? { responseBuffer: t.responseBuffer } : {}),
    ...(t.transformation ? { transformation: t.transformation } : {}),
    ...(t.requestBuffer?.failOpen && !t.retry ? { maxRequestBytes: Number.POSITIVE_INFINITY } : { maxRequestBytes }),
  };
}

/** An edge's compiled `backend.extAuth`; one that does not compile refuses the route (runtime.ts). */
function edgeExtAuth(e: BackendRef['extAuthorization']): { extAuth?: ExtAuthRoute } {
  const plan = e ? compileExtAuth(e) : undefined;
  return typeof plan === 'object' ? { extAuth: plan } : {};
}

/** An edge's compiled `backend.transformation` (checkSnapshot reported its problems already). */
function edgeTransformation(t: IrTransformation | null | undefined): { transformation?: TransformPlan } {
  const plan = t ? compileTransformation(t, 'transformation', () => undefined) : undefined;
  return plan ? { transformation: plan } : {};
}

/** One item chosen with probability weight / total; weight 0 is never chosen; undefined when all are 0. */
export function pickWeighted<T extends { weight: number }>(items: readonly T[], random: () => number): T | undefined {
  const total = items.reduce((sum, i) => sum + Math.max(0, i.weight), 0);
  if (total <= 0) return undefined;
  let point = random() * total;
  for (const item of items) {
    if (item.weight <= 0) continue;
    point -= item.weight;
    if (point < 0) return item;
  }
  return items.findLast((i) => i.weight > 0);
}

class BodyTooLarge extends Error {}
class DeadlineExceeded extends Error {}
class ClientGone extends Error {}

/** Answered by the proxy itself: the Host names no destination, or one that leads back here, or AgentCore has no credentials. */

/** Passes bytes through until `limit`, then fails: the route's max_request_bytes on a streamed body. */
class ByteLimit extends Transform {
  private seen = 0;
  constructor(private readonly limit: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) done(new BodyTooLarge());
    else done(null, chunk);
  }
}

type Failure = 'connect' | 'tls' | 'timeout' | 'reset' | 'too_large' | 'client' | 'other';
/** Failures that count against a target's passive health (the client leaving or a body too large do not). */
const UNHEALTHY = new Set<Failure>(['connect', 'tls', 'timeout', 'reset']);

/** What every try of one request sends: target and headers, and the body when it was buffered whole. */
interface Outgoing {
  method: string;
  path: string;
  headers: HeaderMap;
  hasBody: boolean;
  buffered: Buffer | null;
  /** `http1HeaderCase: Preserve`: the client's header-name case, put back on an HTTP/1.1 upstream request. */
  headerCase?: Map<string, string>;
}

/** One try of a request. */
interface Try {
  target: ForwardTarget;
  tried: number;
  out: Outgoing;
  /** The request's own signal (deadline, client gone); each try has its own besides. */
  signal: AbortSignal;
  caller: Caller;
  answer?: AnswerHook | undefined;
}

/** Where one try goes and the headers it carries. */
interface Addressed {
  target: ForwardTarget;
  address: string;
  headers: HeaderMap;
  /** Set when the credential went into the query string. */
  path?: string;
}

export class HttpForwarder {
  private readonly agent: Agent;
  private readonly tls: UpstreamTlsPool;
  private readonly dialers: UpstreamDialers;
  private readonly h2: H2Upstreams;
  private readonly random: () => number;
  private readonly counters = new Map<string, { inc(): void }>();
  /** This process's name in `Via` on dynamic forward proxy requests: seeing it come back means a loop. */
  private readonly pseudonym: string;
  private readonly local = localAddresses();
  private readonly cloudAuth: CloudAuth;
  /** Exchanged and signed backend tokens; lives as long as the forwarder, so its caches outlast snapshots. */
  readonly identities: BackendIdentities;
  private readonly env: Record<string, string | undefined>;
  private readonly outliers: OutlierDetector;
  private readonly clock: () => number;

  constructor(private readonly opts: ForwarderOptions) {
    this.random = opts.random ?? Math.random;
    this.clock = opts.clock ?? Date.now;
    this.outliers = opts.outliers ?? new OutlierDetector(this.clock);
    // Not from `random`: that one is the weighted pick's, which tests pin.
    this.pseudonym = `gw-${randomBytes(4).toString('hex')}`;
    this.env = opts.env ?? process.env;
    this.cloudAuth = new CloudAuth({ clock: opts.clock ?? Date.now, env: this.env });
    this.agent = new Agent({
      connect: { timeout: opts.connectTimeoutMs ?? 10_000 },
      headersTimeout: opts.headersTimeoutMs ?? 300_000,
      // Streams (SSE) may sit idle for long; only the route deadline bounds a response body.
      bodyTimeout: 0,
      keepAliveTimeout: 30_000,
      connections: 1024,
    });
    this.tls = new UpstreamTlsPool({
      log: opts.log,
      ...(opts.identity ? { identity: opts.identity } : {}),
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: opts.headersTimeoutMs ?? 300_000,
    });
    // Token endpoints named by a backendRef with TLS are dialled through this forwarder's backend TLS pool.
    this.identities = new BackendIdentities(opts.clock ?? Date.now, pooledTlsFetch(this.tls, 'token endpoint'));
    this.dialers = new UpstreamDialers({
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: opts.headersTimeoutMs ?? 300_000,
    });
    this.h2 = new H2Upstreams({ connectTimeoutMs: opts.connectTimeoutMs ?? 10_000 });
  }

  /** What CONNECT tunnels dial with (connect-tunnel.ts): this forwarder's upstream TLS, resolver and loop check. */
  get dialer(): TunnelDialer {
    return {
      log: this.opts.log,
      metrics: this.opts.metrics,
      random: this.random,
      resolve: this.opts.resolve ?? resolveHost,
      selfPorts: this.opts.selfPorts ?? (() => []),
      local: this.local,
      tlsOptions: (backend, host, tls) => this.tls.connectOptions(backend, host, tls),
      connectTimeoutMs: this.opts.connectTimeoutMs ?? 10_000,
    };
  }

  /**
   * The dispatcher of a client of its own (an MCP target) with these connection settings: the TLS pool's,
   * or this forwarder's dialer when a tunnel, TCP settings or an ALPN list ask for it.
   */
  connectionDispatcher(backend: string, host: string, c: UpstreamConnection): Dispatcher {
    if (!needsDialer(c)) return this.tls.dispatcher(backend, host, c.tls as BackendTls);
    return this.dialers.routed(
      backend,
      host,
      dialPlan(c, (tls) => this.tls.connectOptions(backend, host, tls)),
    );
  }

  /** `caller`: who authentication found, and the Authorization header as the client sent it (`backend.auth`). */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    route: ForwardRoute,
    caller: Caller = {},
    preserveHeaderCase = false,
    /** `traffic.extProc` with response phases: the backend's answer goes through the processor first. */
    answer?: AnswerHook,
  ): Promise<void> {
    const limit = route.maxRequestBytes;
    if (Number(req.headers['content-length'] ?? '0') > limit) {
      this.rejectTooLarge(req, res, limit);
      return;
    }
    const abort = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) abort.abort(new ClientGone());
    };
    res.once('close', onClose);
    const timer =
      route.deadlineMs > 0 ? setTimeout(() => abort.abort(new DeadlineExceeded()), route.deadlineMs) : undefined;
    try {
      const wait = delayMs(route.delay, req);
      // Counted against the request deadline: one that passes meanwhile ends the request with 504.
      if (wait > 0) await sleep(wait, abort.signal);
      await this.forward(req, res, route, abort.signal, caller, preserveHeaderCase, answer);
    } finally {
      clearTimeout(timer);
      res.off('close', onClose);
    }
  }

  /** Tries until a response may be passed on; only a fully buffered (or empty) body is ever sent twice. */
  private async forward(
    req: IncomingMessage,
    res: ServerResponse,
    route: ForwardRoute,
    signal: AbortSignal,
    caller: Caller,
    preserveHeaderCase: boolean,
    answer: AnswerHook | undefined,
  ): Promise<void> {
    const first = pickWeighted(this.unejected(route), this.random);
    // The chosen edge's own service decides before the request is built: the headers it adds are sent.
    const asked = first?.extAuth ? await this.authorizeEdge(req, res, route, first, caller) : req;
    if (!asked) return;
    const out = await this.outgoing(asked, res, route, caller);
    if (!out) return;
    if (preserveHeaderCase) out.headerCase = caseOf(asked.rawHeaders);
    for (let tried = 1; ; tried++) {
      // A retry goes only to edges asking the service the first pick asked (none when it asked none).
      const target =
        tried === 1
          ? first
          : pickWeighted(
              this.unejected(route).filter((t) => t.extAuth === first?.extAuth),
              this.random,
            );
      if (!target) {
        sendError(res, 'no_backend', `route ${route.name} has no backend with a weight above 0`);
        return;
      }
      const outcome = await this.tryOnce(req, res, route, { target, tried, out, signal, caller, answer });
      if (outcome === 'done') return;
    }
  }

  /** The edge's own `backend.extAuth`: the request to send on, or undefined once the client was answered. */
  private authorizeEdge(
    req: IncomingMessage,
    res: ServerResponse,
    route: ForwardRoute,
    target: ForwardTarget,
    caller: Caller,
  ): Promise<IncomingMessage | undefined> {
    const ext = target.extAuth as ExtAuthRoute;
    const edge = `backend ${target.backend}`;
    const c = { client: this.opts.extAuth, route: route.name, edge, ext, claims: caller.claims ?? null };
    return authorizeEdge(req, res, { ...c, attributes: { 'gw.backend': target.backend } });
  }

  /** The request as every try sends it; undefined when it was answered here (body too large) or the client left. */
  private async outgoing(
    req: IncomingMessage,
    res: ServerResponse,
    route: ForwardRoute,
    caller: Caller,
  ): Promise<Outgoing | undefined> {
    const limit = route.maxRequestBytes;
    const hasBody = requestHasBody(req);
    let buffered: Buffer | null = null;
    // A signature covers the body's hash: AgentCore requests are buffered whole (bounded by the route's limit).
    // So is a body a transformation reads.
    const transformsBody = requestBodyRead(route.transformation, ...route.targets.map((t) => t.transformation));
    if (hasBody && (route.retry || transformsBody || route.targets.some((t) => t.agentCore))) {
      const b = await bufferBody(req, limit);
      if (b === 'too_large') {
        this.rejectTooLarge(req, res, limit);
        return undefined;
      }
      if (b === 'gone') return undefined;
      buffered = b;
    }
    const { path, headers } = upstreamRequest(req, route);
    if (!hasBody) delete headers['content-length'];
    if (buffered) headers['content-length'] = String(buffered.length);
    const out = { method: req.method ?? 'GET', path, headers, hasBody, buffered };
    const step = route.transformation?.request;
    if (!step) return out;
    try {
      return transformRequest(step, out, caller, 'traffic.transformation.request');
    } catch (err) {
      req.resume();
      this.opts.log.info({ route: route.name, reason: (err as ProxyError).code }, (err as Error).message);
      sendProxyError(res, err as ProxyError);
      return undefined;
    }
  }

  /** One try; `retry` when another should follow (its backoff already waited), `done` once the client has its answer. */
  private async tryOnce(
    req: IncomingMessage,
    res: ServerResponse,
    route: ForwardRoute,
    t: Try,
  ): Promise<'retry' | 'done'> {
    const { target, tried, signal } = t;
    const out = target.transformation?.request
      ? outFor(target.transformation.request, t, 'backend.transformation.request')
      : t.out;
    const attempt = new AbortController();
    const onAbort = (): void => attempt.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const tryMs = route.tryDeadlineMs || (target.requestTimeoutMs ?? 0);
    const attemptTimer = tryMs > 0 ? setTimeout(() => attempt.abort(new DeadlineExceeded()), tryMs) : undefined;
    let body: Buffer | ByteLimit | null = null;
    // A dynamic target becomes the destination this request names, for the log and the TLS name.
    let sentTo = target;
    try {
      if (out instanceof ProxyError) throw out;
      const to = await this.addressed(req, { ...t, out }, attempt.signal);
      sentTo = to.target;
      body = out.buffered ?? (out.hasBody ? req.pipe(new ByteLimit(route.maxRequestBytes)) : null);
      const call = await this.callOf(target, to, out);
      const method = target.agentCore ? 'POST' : out.method;
      const t0 = target.health ? this.clock() : 0;
      const up = await this.send(target, to, { ...call, method, body, signal: attempt.signal }, out.headerCase);
      if (target.health) this.observed(route, target, up, t0);
      this.count(`req ${sentTo.backend} ${Math.floor(up.statusCode / 100)}`, () =>
        this.opts.metrics.upstreamRequests.labels(sentTo.backend, `${Math.floor(up.statusCode / 100)}xx`),
      );
      if (route.retry && mayRetry(route.retry, tried, { status: up.statusCode })) {
        await up.body.dump();
        return await this.retryOrFail(req, res, route, { sentTo, tried, why: `status ${up.statusCode}`, signal });
      }
      const processed = t.answer ? await t.answer(up, res) : up;
      if (processed) await this.respond(res, route, sentTo, processed, t.caller);
      return 'done';
    } catch (err) {
      return await this.tryFailed(err, req, res, route, { sentTo, body, tried, attempt: attempt.signal, signal });
    } finally {
      clearTimeout(attemptTimer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The try's destination and headers: a dynamic target's Host resolved and checked first (no token is had for
   * a destination that is refused), then the edge's credential added.
   */
  private async addressed(req: IncomingMessage, t: Try, signal: AbortSignal): Promise<Addressed> {
    const { out } = t;
    const to = t.target.dynamic
      ? await this.destination(req, t.target, out.headers, signal)
      : { target: t.target, address: t.target.endpoint ?? t.target.host, headers: out.headers };
    const c = t.target.credential;
    if (c && isIdentity(c)) {
      const request = { method: req.method ?? 'GET', path: out.path.split('?')[0] ?? '/', headers: flatHeaders(req) };
      const p = await this.identities.place(
        c,
        { path: out.path, headers: to.headers },
        t.caller,
        request,
        `backend ${t.target.backend}`,
      );
      if (p instanceof IdentityFailure) throw new ProxyError(p.code, p.message);
      return { ...to, headers: p.headers, path: p.path };
    }
    if (t.target.agentCore) return to;
    const authed = withCredential(to.headers, c, t.caller.authorization, t.target.backend);
    if (authed instanceof MissingClientToken) throw new ProxyError('invalid_token', authed.message);
    return { ...to, headers: authed };
  }

  /** Origin, path and headers of the upstream request: the addressed target, or a signed AgentCore invocation. */
  private async callOf(
    target: ForwardTarget,
    to: Addressed,
    out: Outgoing,
  ): Promise<Pick<UpstreamRequest, 'origin' | 'path' | 'headers'>> {
    if (!target.agentCore) {
      const host = isIP(to.address) === 6 ? `[${to.address}]` : to.address;
      return {
        origin: `${target.tls ? 'https' : 'http'}://${host}:${to.target.port}`,
        path: to.path ?? out.path,
        headers: to.headers,
      };
    }
    const call = await agentCoreCall(
      this.cloudAuth,
      target.agentCore,
      out.headers,
      out.buffered ?? Buffer.alloc(0),
      this.env,
      `backend ${target.backend}`,
      target.credential,
    );
    if (call instanceof CloudAuthFailure) throw new ProxyError(call.code, call.message);
    return { origin: call.origin, path: call.path, headers: call.headers };
  }

  /** Passes the backend's answer on: buffered when the policy says so, else streamed with its trailers. */
  private async respond(
    res: ServerResponse,
    route: ForwardRoute,
    target: ForwardTarget,
    up: UpstreamResponse,
    caller: Caller,
  ): Promise<void> {
    const steps = responseSteps(route.transformation, target.transformation);
    if (steps.length > 0) {
      const maxBytes = route.responseBuffer?.maxBytes ?? DEFAULT_TRANSFORM_RESPONSE_BYTES;
      const done = await transformAnswer(res.req, up, steps, caller, maxBytes);
      if (done.body) {
        res.writeHead(up.statusCode, done.headers).end(done.body);
        return;
      }
      up = { ...up, headers: done.headers };
    }
    if (route.responseBuffer) return this.respondBuffered(res, route, target, up, route.responseBuffer);
    if (up.endedWithHeaders && respondHeadersOnly(res, up.statusCode, withoutHopByHop(up.headers))) return;
    res.writeHead(up.statusCode, clientHeaders(res, up));
    // Without this an SSE stream's headers wait for its first event.
    if (String(up.headers['content-type'] ?? '').startsWith('text/event-stream')) res.flushHeaders();
    await pipeline(up.body, res, { end: false });
    // Trailers (gRPC's status) follow the body; Node sends them on chunked HTTP/1.1 and on HTTP/2.
    if (up.trailers && Object.keys(up.trailers).length > 0) res.addTrailers(withoutHopByHop(up.trailers));
    res.end();
  }

  /** A try that threw: the proxy's own answer, a connect failure worth another try, or the failure table. */
  private async tryFailed(
    err: unknown,
    req: IncomingMessage,
    res: ServerResponse,
    route: ForwardRoute,
    f: {
      sentTo: ForwardTarget;
      body: Buffer | ByteLimit | null;
      tried: number;
      attempt: AbortSignal;
      signal: AbortSignal;
    },
  ): Promise<'retry' | 'done'> {
    if (err instanceof ProxyError) {
      req.resume();
      // 5xx here is the proxy's own configuration (AgentCore credentials): the operator's to see.
      this.opts.log[err.status >= 500 ? 'warn' : 'info'](
        { route: route.name, backend: f.sentTo.backend, reason: err.code },
        err.message,
      );
      sendProxyError(res, err);
      return 'done';
    }
    const kind = classify(err, f.attempt);
    if (f.sentTo.health && UNHEALTHY.has(kind)) this.observedFailure(route, f.sentTo);
    if (route.retry && kind === 'connect' && mayRetry(route.retry, f.tried, 'connect')) {
      this.count(`fail ${f.sentTo.backend} connect`, () =>
        this.opts.metrics.upstreamFailures.labels(f.sentTo.backend, 'connect'),
      );
      return this.retryOrFail(req, res, route, { ...f, why: 'connect failure' });
    }
    if (f.body instanceof ByteLimit) f.body.destroy();
    req.unpipe();
    this.fail(req, res, route, f.sentTo, err, f.attempt);
    return 'done';
  }

  /** The route's targets less those ejected; all of them when every weighted one is (panic: keep serving). */
  private unejected(route: ForwardRoute): ForwardTarget[] {
    if (!route.healthPool) return route.targets;
    const o = this.outliers;
    const left = route.targets.filter((t) => !t.health || !o.isEjected(route.name, memberOf(t)));
    return left.some((t) => t.weight > 0) ? left : route.targets;
  }

  /** A status from a target that sets `health`: failures by its `unhealthyCondition` or 5xx and 429 (Retry-After honoured). */
  private observed(route: ForwardRoute, target: ForwardTarget, up: UpstreamResponse, t0: number): void {
    const status = up.statusCode;
    if (!unhealthyAnswer(target.health, status, up.headers)) {
      this.outliers.succeeded(route.name, memberOf(target), this.clock() - t0);
      return;
    }
    const wait = status === 429 || status === 503 ? retryAfterMs(up.headers['retry-after'], this.clock()) : 0;
    this.observedFailure(route, target, wait);
  }

  private observedFailure(route: ForwardRoute, target: ForwardTarget, retryAfter = 0): void {
    const { health } = target;
    if (!health) return;
    if (this.outliers.failed(route.name, memberOf(target), health, route.healthPool ?? [], retryAfter))
      this.opts.log.warn(
        { route: route.name, backend: target.backend, ...(target.endpoint ? { endpoint: memberOf(target) } : {}) },
        'backend ejected by passive health',
      );
  }

  /** After the backoff another try follows, unless the request deadline passed or the client left meanwhile. */
  private async retryOrFail(
    req: IncomingMessage,
    res: ServerResponse,
    route: ForwardRoute,
    r: { sentTo: ForwardTarget; tried: number; why: string; signal: AbortSignal },
  ): Promise<'retry' | 'done'> {
    if (await this.backOff(route, r.sentTo, r.tried, r.why, r.signal)) return 'retry';
    this.fail(req, res, route, r.sentTo, r.signal.reason, r.signal);
    return 'done';
  }

  /**
   * Where a dynamic forward proxy request goes: the Host the backend would see (after URLRewrite and
   * header modifiers) names it, resolved once so the loop check and the connection use the same address.
   */
  private async destination(
    req: IncomingMessage,
    target: ForwardTarget,
    headers: HeaderMap,
    signal: AbortSignal,
  ): Promise<{ target: ForwardTarget; address: string; headers: HeaderMap }> {
    const named = destinationOf(headers.host, target.tls !== undefined);
    if (!named.ok)
      throw new ProxyError(
        'invalid_host',
        `${named.reason}; backend ${target.backend} forwards to the host the request names`,
      );
    const { host, port } = named.destination;
    if (viaHas(req.headers.via, this.pseudonym))
      throw new ProxyError(
        'loop_detected',
        `the request already passed through this proxy; forwarding it to ${host}:${port} would loop`,
      );
    const address = await abortable((this.opts.resolve ?? resolveHost)(host), signal);
    const refused = refusedDestination(address, target.allowed, this.local);
    if (refused) throw destinationNotAllowed(target.backend, host, port, address, refused);
    const ports = this.opts.selfPorts?.() ?? [req.socket.localPort ?? 0];
    if (isSelf(address, port, ports, this.local))
      throw new ProxyError(
        'loop_detected',
        `${host}:${port} is this proxy's own listener; forwarding to it would loop`,
      );
    return {
      target: { ...target, host, port },
      address,
      headers: { ...headers, via: viaWith(req.headers.via, this.pseudonym) },
    };
  }

  /** `traffic.buffer.response`: the answer whole, or 502 past the limit (FailClosed), or unbuffered (FailOpen). */
  private async respondBuffered(
    res: ServerResponse,
    route: ForwardRoute,
    target: ForwardTarget,
    up: UpstreamResponse,
    plan: BufferPlan,
  ): Promise<void> {
    const got = await bufferResponse(up.body, plan, Number(up.headers['content-length'] ?? 0));
    if (!got.over) {
      res
        .writeHead(up.statusCode, { ...clientHeaders(res, up), 'content-length': String(got.body.length) })
        .end(got.body);
      return;
    }
    if (!plan.failOpen) {
      up.body.destroy();
      this.opts.log.info(
        { route: route.name, backend: target.backend, maxBytes: plan.maxBytes },
        'backend answer exceeds traffic.buffer.response',
      );
      sendError(res, 'response_too_large', `the answer of backend ${target.backend} exceeds ${plan.maxBytes} bytes`);
      return;
    }
    res.writeHead(up.statusCode, clientHeaders(res, up));
    await pipeline(got.rest, res);
  }

  /** Counts the retry and waits its backoff; false when the request deadline passed or the client left meanwhile. */
  private async backOff(
    route: ForwardRoute,
    target: ForwardTarget,
    tried: number,
    why: string,
    signal: AbortSignal,
  ): Promise<boolean> {
    this.count(`retry ${target.backend}`, () => this.opts.metrics.upstreamRetries.labels(target.backend));
    this.opts.log.debug({ route: route.name, backend: target.backend, tried, why }, 'retrying upstream request');
    if (route.retry) await sleep(retryDelayMs(route.retry, tried), signal);
    return !signal.aborted;
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.destroy(), this.tls.close(), this.dialers.close(), this.h2.close()]);
  }

  /** One try, through the client the edge asks for: HTTP/2 (node:http2) or undici (HTTP/1.1, AgentCore). */
  private send(
    target: ForwardTarget,
    to: { target: ForwardTarget },
    call: UpstreamRequest,
    headerCase?: Map<string, string>,
  ): Promise<UpstreamResponse> {
    const host = to.target.host;
    const plan = (): DialPlan =>
      target.agentCore
        ? agentCorePlan(target, call.origin)
        : dialPlan(target, (tls) => this.tls.connectOptions(target.backend, host, tls));
    if (target.h2) {
      const p = plan();
      return this.h2.request(planKey(target.backend, call.origin, p), call, p);
    }
    // An AgentCore edge's `backend.tls` is never used (AWS's own TLS): only its tunnel or TCP settings need the dialer.
    if (target.agentCore ? target.tunnel || target.tcp : needsDialer(target))
      return this.dialled(target.backend, host, plan(), call, headerCase);
    const dispatcher =
      target.tls && !target.agentCore ? this.tls.dispatcher(target.backend, to.target.host, target.tls) : this.agent;
    if (!headerCase) return dispatcher.request({ ...call, method: call.method as Dispatcher.HttpMethod });
    return casedRequest(dispatcher, { ...call, headers: recased(call.headers, headerCase) });
  }

  /** One try on an edge with `backend.tunnel`, `backend.tcp` or an ALPN list: its own dialer, absolute form when Auto says so. */
  private async dialled(
    backend: string,
    host: string,
    plan: DialPlan,
    call: UpstreamRequest,
    headerCase?: Map<string, string>,
  ): Promise<UpstreamResponse> {
    const dispatcher = this.dialers.dispatcher(backend, host, plan);
    const t = plan.tunnel;
    const viaProxy = t && absoluteForm(plan);
    const sent = viaProxy
      ? {
          ...call,
          origin: `${t.tls ? 'https' : 'http'}://${proxyName(t)}`,
          path: `${call.origin}${call.path}`,
          headers: t.proxyAuthorization
            ? { ...call.headers, 'proxy-authorization': t.proxyAuthorization }
            : call.headers,
        }
      : call;
    const up = headerCase
      ? await casedRequest(dispatcher, { ...sent, headers: recased(sent.headers, headerCase) })
      : await dispatcher.request({ ...sent, method: sent.method as Dispatcher.HttpMethod });
    // The proxy's own refusal of an absolute-form request is not the backend's answer.
    if (viaProxy && up.statusCode === 407) {
      await up.body.dump();
      throw new TunnelRefused(proxyName(t), up.statusCode);
    }
    return up;
  }

  private fail(
    req: IncomingMessage,
    res: ServerResponse,
    route: ForwardRoute,
    target: ForwardTarget,
    err: unknown,
    signal: AbortSignal,
  ): void {
    const tlsReason = target.tls && !signal.aborted ? this.tls.failureReason(err) : undefined;
    const reason = tlsReason ? 'tls' : classify(err, signal);
    if (reason === 'too_large') {
      this.rejectTooLarge(req, res, route.maxRequestBytes);
      return;
    }
    if (reason === 'client') {
      this.opts.log.debug({ route: route.name, backend: target.backend }, 'client went away; upstream request aborted');
      return;
    }
    this.count(`fail ${target.backend} ${reason}`, () =>
      this.opts.metrics.upstreamFailures.labels(target.backend, reason),
    );
    this.opts.log.warn(
      {
        route: route.name,
        backend: target.backend,
        upstream: `${target.host}:${target.port}`,
        code: errorCode(err),
        reason,
        headersSent: res.headersSent,
      },
      'upstream request failed',
    );
    if (res.headersSent) {
      // Mid-response there is no status left to send: ending the connection tells the client the body is cut.
      res.destroy();
      return;
    }
    req.resume();
    if (err instanceof TunnelRefused)
      sendError(res, 'bad_gateway', `backend ${target.backend}: ${err.message}; nothing was sent to the backend`);
    else if (reason === 'connect') sendError(res, 'backend_unavailable', `backend ${target.backend} is unreachable`);
    else if (tlsReason) sendError(res, 'backend_unavailable', `TLS to backend ${target.backend} failed: ${tlsReason}`);
    else if (reason === 'timeout')
      sendError(res, 'gateway_timeout', `backend ${target.backend} did not respond in time`);
    else sendError(res, 'bad_gateway', `backend ${target.backend} closed the connection before responding`);
  }

  private rejectTooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
    sendError(res, 'payload_too_large', `the request body exceeds ${limit} bytes`, { connection: 'close' });
    req.resume();
  }

  /** Labelled counters are looked up once per key: the label hash shows in per-request profiles otherwise. */
  private count(key: string, make: () => { inc(): void }): void {
    let c = this.counters.get(key);
    if (!c) this.counters.set(key, (c = make()));
    c.inc();
  }
}

/** A try's request after its edge's request step, or the failure to answer with. */
function outFor(step: TransformStep, t: Try, at: string): Outgoing | ProxyError {
  try {
    return transformRequest(step, t.out, t.caller, at);
  } catch (err) {
    return err as ProxyError;
  }
}

/** `p`, or the signal's reason as soon as it aborts (a DNS lookup cannot be cancelled, only left behind). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function classify(err: unknown, signal: AbortSignal): Failure {
  if (err instanceof BodyTooLarge || (err as { cause?: unknown })?.cause instanceof BodyTooLarge) return 'too_large';
  const code = errorCode(err);
  // The backend's socket broke: on Node 22+ piping the cut body on also closes the client side, which aborts
  // the signal before this runs, so the socket error decides (a client leaving first aborts undici instead).
  if (code === 'UND_ERR_SOCKET') return 'reset';
  if (signal.aborted) return signal.reason instanceof DeadlineExceeded ? 'timeout' : 'client';
  const kind = failureKind(err);
  if (kind) return kind;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  if (code === 'ERR_STREAM_PREMATURE_CLOSE') return 'reset';
  return 'other';
}

/**
 * Request target and headers for the backend: forwarding headers first, then the route's request header
 * modifier (a filter may override X-Forwarded-*; hop-by-hop names it sets are still dropped), then URLRewrite.
 */
function upstreamRequest(req: IncomingMessage, route: ForwardRoute): { path: string; headers: HeaderMap } {
  let headers = upstreamRequestHeaders(req.headers, { remoteAddress: req.socket.remoteAddress, proto: schemeOf(req) });
  if (route.policyRequestHeaders) headers = withoutHopByHop(applyHeaderModifier(headers, route.policyRequestHeaders));
  if (route.hostRewrite) headers.host = route.hostRewrite;
  const f = route.filters;
  if (f?.requestHeaders) headers = withoutHopByHop(applyHeaderModifier(headers, f.requestHeaders));
  const rewritten = upstreamTargetOf(req, route);
  if (rewritten.host) headers.host = rewritten.host;
  return { path: rewritten.target, headers };
}

/** The request target the backend is sent (the route's URL rewrite applied), and the Host that rewrite sets. */
export function upstreamTargetOf(req: IncomingMessage, route: ForwardRoute): { target: string; host?: string } {
  const target = originPath(req.url);
  const rewrite = route.filters?.rewrite;
  return rewrite ? rewriteTarget(target, rewrite, route.matches) : { target };
}

/**
 * Whether the client sends a body: HTTP/1.1 says so in its headers; an HTTP/2 request (gRPC, for one) often
 * carries no content-length, and has a body unless its HEADERS frame ended the stream.
 */
/** Whether the client sends a body (framing headers, or an HTTP/2 stream not ended with its headers). */
export function requestHasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? '0') > 0) return true;
  const h2 = (req as IncomingMessage & { stream?: { endAfterHeaders?: boolean } }).stream;
  return req.httpVersionMajor >= 2 && h2 !== undefined && h2.endAfterHeaders !== true;
}

/**
 * An HTTP/2 answer that was one HEADERS frame (gRPC's trailers-only status) goes to an HTTP/2 client as one
 * HEADERS frame too: Node's compat response always sends headers and end separately, and a gRPC client
 * reads a status in the headers only when they end the stream. False when the client is not on HTTP/2.
 */
function respondHeadersOnly(res: ServerResponse, status: number, headers: Record<string, unknown>): boolean {
  const stream = (res as ServerResponse & { stream?: ServerHttp2Stream }).stream;
  if (!stream || res.headersSent || stream.destroyed) return false;
  const out: OutgoingHttpHeaders = { ':status': status };
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined && !CONNECTION_SPECIFIC.has(k)) out[k] = v as string;
  stream.respond(out, { endStream: true });
  return true;
}
