// CORS headers for a route's effective policy. Pure: request headers in, response headers out.
// Choices where the policy is silent (docs/proxy.md "CORS"): `https://*.example.com` allows any sub-domain,
// `allowHeaders: ["*"]` reflects what the browser asks for (the Fetch standard's `*` never covers
// Authorization), and WWW-Authenticate is always exposed so a browser MCP client can start OAuth after a 401.
import type { Cors } from '../../ir/types.js';

const defaultMethods = ['GET', 'POST', 'DELETE', 'OPTIONS'];

/** Exposed on every CORS response: a 401's challenge names the protected-resource metadata. */
const alwaysExposed = 'WWW-Authenticate';

/** An allowed origin as written (`*`, `https://app.example`, `https://*.example.com[:port]`) matches the request's. */
export function originMatches(pattern: string, origin: string): boolean {
  if (pattern === '*') return true;
  const p = pattern.toLowerCase(),
    o = origin.toLowerCase();
  if (p === o) return true;
  const wild = /^([a-z][a-z0-9+.-]*):\/\/\*\.([^/:]+)(:\d+)?$/.exec(p);
  if (!wild) return false;
  const [, scheme, suffix, port = ''] = wild;
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/:]+)(:\d+)?$/.exec(o);
  return !!m && m[1] === scheme && (m[3] ?? '') === port && (m[2] as string).endsWith(`.${suffix}`);
}

function originAllowed(cors: Cors, origin: string): boolean {
  return cors.allowOrigins.some((o) => originMatches(o, origin));
}

function allowOriginValue(cors: Cors, origin: string): string {
  // Credentials forbid the wildcard, so echo the origin then.
  return cors.allowOrigins.includes('*') && !cors.allowCredentials ? '*' : origin;
}

/** True when the request is a CORS preflight (answered before authentication). */
export function isPreflight(
  method: string | undefined,
  headers: Record<string, string | string[] | undefined>,
): boolean {
  return (
    method === 'OPTIONS' && typeof headers.origin === 'string' && headers['access-control-request-method'] !== undefined
  );
}

/** Headers of the preflight answer; undefined when the origin is not allowed. */
export function preflightHeaders(
  cors: Cors,
  origin: string,
  requestHeaders: string | undefined,
): Record<string, string> | undefined {
  if (!originAllowed(cors, origin)) return undefined;
  const out: Record<string, string> = {
    'access-control-allow-origin': allowOriginValue(cors, origin),
    'access-control-allow-methods': (cors.allowMethods.length > 0 ? cors.allowMethods : defaultMethods).join(', '),
    vary: 'Origin',
  };
  if (cors.allowHeaders.includes('*')) {
    // A literal `*` never covers Authorization (and is no wildcard at all with credentials): reflect the request.
    if (requestHeaders) out['access-control-allow-headers'] = requestHeaders;
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
  const exposed = cors.exposeHeaders.some((h) => h.toLowerCase() === alwaysExposed.toLowerCase())
    ? cors.exposeHeaders
    : [...cors.exposeHeaders, alwaysExposed];
  out['access-control-expose-headers'] = exposed.join(', ');
  if (cors.allowCredentials) out['access-control-allow-credentials'] = 'true';
  return out;
}
