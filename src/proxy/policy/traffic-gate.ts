// Where a route's GwPolicy traffic plan meets a request, before dispatch to MCP or HTTP backends: the
// response header modifier, CSRF, the local rate limit and the direct response. Timeouts, retries and the
// request header modifier of forwarded routes run in the forwarder (http-forward.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Route } from '../../ir/types.js';
import { sendError } from '../http/http-error.js';
import type { ProxyMetrics } from '../metrics.js';
import { RateLimits, type RouteLimiter, type RouteLimits } from './rate-limit.js';
import { modifyRequestHeaders, modifyResponseHeaders } from '../http/route-filters.js';
import { csrfRefusal } from './csrf.js';
import { answerDirect } from './direct-response.js';
import { compileTraffic, type TrafficPlan } from './traffic-policy.js';

export interface RouteTraffic {
  plan: TrafficPlan;
  limiter?: RouteLimiter;
}

export class TrafficGate {
  private readonly limits: RateLimits;

  constructor(
    private readonly log: Logger,
    private readonly metrics: ProxyMetrics,
    clock?: () => number,
  ) {
    this.limits = new RateLimits(clock);
  }

  /** Plans of every route of a snapshot (already checked by checkSnapshot, so problems are not expected here). */
  compile(routes: Iterable<Route>): Map<string, RouteTraffic> {
    const plans = new Map<string, TrafficPlan>();
    for (const route of routes) {
      const { plan } = compileTraffic(route);
      plans.set(route.name, plan);
    }
    const limiters = this.limits.update(
      new Map<string, RouteLimits>(
        [...plans].map(([name, p]) => [name, { requests: p.limits, tokens: p.tokenLimits }]),
      ),
    );
    return new Map([...plans].map(([name, plan]) => [name, { plan, limiter: limiters.get(name) }]));
  }

  /**
   * Runs after the route's own filters (so its ResponseHeaderModifier, being more specific, edits last)
   * and before authentication and dispatch. True when the response has been sent.
   */
  handle(req: IncomingMessage, res: ServerResponse, route: string, t: RouteTraffic | undefined): boolean {
    if (!t) return false;
    if (t.plan.responseHeaders) modifyResponseHeaders(res, t.plan.responseHeaders);
    // A refused cross-site request takes no rate-limit token.
    const crossSite = t.plan.csrf ? csrfRefusal(req, t.plan.csrf) : undefined;
    if (crossSite) {
      req.resume();
      sendError(res, 'forbidden', `route ${route} refuses cross-site requests: ${crossSite}`);
      return true;
    }
    const wait = t.limiter?.admit(this.limits.now()) ?? 0;
    if (wait > 0) {
      this.metrics.rateLimited.inc({ route });
      req.resume();
      sendError(res, 'rate_limited', `route ${route} allows no more requests right now; retry later`, {
        'retry-after': String(Math.ceil(wait / 1000)),
      });
      return true;
    }
    const direct = t.plan.directResponse;
    return direct ? answerDirect(req, res, route, direct) : false;
  }

  /** Counts a request another stage refused with 429 for a rate limit (`traffic.rateLimit.global`). */
  countLimited(route: string): void {
    this.metrics.rateLimited.inc({ route });
  }

  /** Counts an LLM answer's tokens against the route's token limits (nothing when it has none). */
  chargeTokens(t: RouteTraffic | undefined, tokens: number): void {
    t?.limiter?.charge(tokens, this.limits.now());
  }
}

/**
 * MCP routes: the policy's request header modifier changes what the MCP endpoint sees, like the route's
 * RequestHeaderModifier (which runs after this one); authentication has already seen the client's headers.
 */
export function withPolicyRequestHeaders(req: IncomingMessage, t: RouteTraffic | undefined): IncomingMessage {
  return modifyRequestHeaders(req, t?.plan.requestHeaders);
}
