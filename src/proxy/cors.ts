// CORS headers for a route's effective policy. Pure: request headers in, response headers out.
import type { Cors } from '../ir/types.js';

const defaultMethods = ['GET', 'POST', 'DELETE', 'OPTIONS'];

function originAllowed(cors: Cors, origin: string): boolean {
  return cors.allowOrigins.some((o) => o === '*' || o.toLowerCase() === origin.toLowerCase());
}

function allowOriginValue(cors: Cors, origin: string): string {
  // Credentials forbid the wildcard, so echo the origin then.
  return cors.allowOrigins.includes('*') && !cors.allowCredentials ? '*' : origin;
}

/** True when the request is a CORS preflight (answered before authentication). */
export function isPreflight(method: string | undefined, headers: Record<string, string | string[] | undefined>): boolean {
  return method === 'OPTIONS' && typeof headers.origin === 'string' && headers['access-control-request-method'] !== undefined;
}

/** Headers of the preflight answer; undefined when the origin is not allowed. */
export function preflightHeaders(cors: Cors, origin: string, requestHeaders: string | undefined): Record<string, string> | undefined {
  if (!originAllowed(cors, origin)) return undefined;
  const out: Record<string, string> = {
    'access-control-allow-origin': allowOriginValue(cors, origin),
    'access-control-allow-methods': (cors.allowMethods.length > 0 ? cors.allowMethods : defaultMethods).join(', '),
    vary: 'Origin',
  };
  if (cors.allowHeaders.includes('*')) {
    // `*` is literal when credentials are allowed, so reflect what the browser asked for.
    if (requestHeaders) out['access-control-allow-headers'] = cors.allowCredentials ? requestHeaders : '*';
  } else if (cors.allowHeaders.length > 0) {
    out['access-control-allow-headers'] = cors.allowHeaders.join(', ');
  }
  if (cors.maxAge > 0) out['access-control-max-age'] = String(cors.maxAge);
  if (cors.allowCredentials) out['access-control-allow-credentials'] = 'true';
  return out;
}

/** Headers added to an actual (non-preflight) response. */
export function responseCorsHeaders(cors: Cors, origin: string | undefined): Record<string, string> {
  if (!origin || !originAllowed(cors, origin)) return {};
  const out: Record<string, string> = { 'access-control-allow-origin': allowOriginValue(cors, origin), vary: 'Origin' };
  if (cors.exposeHeaders.length > 0) out['access-control-expose-headers'] = cors.exposeHeaders.join(', ');
  if (cors.allowCredentials) out['access-control-allow-credentials'] = 'true';
  return out;
}
