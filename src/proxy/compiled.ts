// What the runtime compiles an IR route and listener into: everything a request needs, decided once
// per snapshot so the per-request pipeline (pipeline.ts) only reads.
import type { Route } from '../ir/types.js';
import type { RouteAuth } from './auth/hooks.js';
import type { ExtAuthRoute } from './auth/ext-auth.js';
import type { ConnectPlan } from './http/connect.js';
import type { ExtProcPlan } from './ext/ext-proc-session.js';
import type { ForwardRoute } from './http/http-forward.js';
import type { RouteMatcher } from './http/route-match.js';
import type { LlmRoute } from './llm/llm-route.js';
import type { McpRoute } from './mcp/route.js';
import type { RouteTraffic } from './policy/traffic-gate.js';
import type { GlobalLimitPlan } from './policy/global-rate-limit.js';
import type { ListenerTelemetry } from './telemetry/request-telemetry.js';

export interface CompiledRoute extends McpRoute {
  route: Route;
  /** Set when the route's backends are plain HTTP (static, a2a): requests go to the forwarder, not MCP. */
  forward?: ForwardRoute;
  /** Set when the route's first weighted backend is `ai`, or GwModels are attached to it: OpenAI chat completions to LLM providers. */
  llm?: LlmRoute;
  traffic?: RouteTraffic;
  /** GwPolicy `traffic.extAuth`: the authorization service asked before the backend. */
  extAuth?: ExtAuthRoute;
  /** GwPolicy `traffic.extProc`: the external processor the exchange goes through. */
  extProc?: ExtProcPlan;
  /** GwPolicy / GwBackend `backend.extAuth`, the same on every backend of the route: asked after `extAuth`. */
  backendExtAuth?: ExtAuthRoute;
  /** GwPolicy `traffic.rateLimit.global`: the rate-limit service asked after authorization. */
  globalRateLimit?: GlobalLimitPlan;
  /** Security settings of the route this proxy cannot enforce: every request gets 503, never the backend. */
  unenforced: string[];
  /** No backend ref survived translation (all invalid, or TLS that cannot be set up): Gateway API says 500. */
  noBackend: boolean;
}

export interface CompiledListener {
  /** The IR listener's name (the TLS table names the listener a handshake chose by it). */
  name: string;
  hostnames: string[];
  routes: CompiledRoute[];
  match: RouteMatcher<CompiledRoute>;
  /**
   * OAuth endpoints of the listener's routes (discovery, registration, proxied authorize/token) by exact
   * path: a request is offered to the one auth module that serves its path, not to every route's.
   */
  authEndpoints: Map<string, RouteAuth>;
  /** Auth modules that do not list their paths: offered every request (test hooks, older modules). */
  authUnlisted: RouteAuth[];
  /** `frontend.http.maxConcurrentRequests`: requests in flight on the listener (kept across snapshots). */
  concurrency?: ConcurrencyCap;
  /** `frontend.http.http1MaxHeaders`: a request with more header fields gets 431. */
  maxHeaders?: number;
  /** `frontend.http.http1HeaderCase: Preserve`: forwarded HTTP/1.1 hops keep header-name case. */
  preserveHeaderCase?: boolean;
  /** `frontend.connect.mode`: absent without a connect policy (a CONNECT gets 405, as with Deny). */
  connect?: ConnectPlan;
  /** `frontend.accessLog` / `frontend.tracing`: absent when the listener sets neither. */
  telemetry?: ListenerTelemetry;
}

/** A listener's cap on requests in flight; the counter outlives snapshots so a push does not reset it. */
export interface ConcurrencyCap {
  max: number;
  counter: { inFlight: number };
}

export function authEndpointsOf(
  routes: readonly CompiledRoute[],
): Pick<CompiledListener, 'authEndpoints' | 'authUnlisted'> {
  const authEndpoints = new Map<string, RouteAuth>();
  const authUnlisted: RouteAuth[] = [];
  for (const r of routes) {
    const auth = r.security.auth;
    if (!auth) continue;
    if (!auth.paths) authUnlisted.push(auth);
    // The first route (in match order) that serves a path answers it, as the old first-wins loop did.
    else for (const p of auth.paths) if (!authEndpoints.has(p)) authEndpoints.set(p, auth);
  }
  return { authEndpoints, authUnlisted };
}
