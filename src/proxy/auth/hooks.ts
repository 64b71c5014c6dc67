// Extension points for authentication and authorization (implemented in src/proxy/auth and
// src/proxy/policy/cel). All optional: without them every request is anonymous and allowed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Route } from '../../ir/types.js';

/** Authentication for one route whose effective policy has `mcpAuthentication`. */
export interface RouteAuth {
  /** Offered requests on the listener first (discovery, registration, proxied OAuth); true = answered. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /**
   * The exact paths handle() answers; [] for none. When set, the runtime offers handle() only requests
   * for these paths (one map lookup per request); when unset, every request on the listener.
   */
  readonly paths?: readonly string[];
  /**
   * Validates the caller; null means it already answered (401). `claims` is null for anonymous callers.
   * A plain value when nothing had to be waited for (a cached token, an API key): no promise per request.
   */
  authenticate(req: IncomingMessage, res: ServerResponse): AuthResult | null | Promise<AuthResult | null>;
}

/** Who the caller is, once authenticated. */
export interface AuthResult {
  claims: Record<string, unknown> | null;
  apiKey?: Record<string, unknown>;
}

export interface AuthorizeContext {
  jwt?: Record<string, unknown>;
  /** The `metadata` of the API key the caller presented (traffic.apiKeyAuthentication). */
  apiKey?: Record<string, unknown>;
  request: { method: string; path: string; headers: Record<string, string> };
  mcp: { method: string; tool?: string; prompt?: string; resource?: string };
  /** The A2A call of a request on an A2A route (CEL `a2a`); absent on other requests. */
  a2a?: Record<string, string>;
  /** The request is on a route to an A2A agent: only there does a rule reading `a2a` skip a request with no call. */
  a2aRoute?: boolean;
}

/** True allows. Names are the ones the client sees (after prefixing). */
export type Authorize = (ctx: AuthorizeContext) => boolean;

export interface RouteSecurity {
  auth?: RouteAuth;
  authorize?: Authorize;
}

/** Built once per route each time a snapshot is applied; return {} when the route needs nothing. */
export type RouteSecurityFactory = (route: Route, log: Logger) => RouteSecurity;
