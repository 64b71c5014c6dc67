// GwPolicy `traffic.csrf`: unsafe requests a browser sends cross-site are refused (403). The checks follow
// Go's http.CrossOriginProtection, as users of the Fetch metadata standard expect: Sec-Fetch-Site when the
// browser sends it, else Origin against the request's own Host; a request with neither is no browser's.
import type { IncomingMessage } from 'node:http';
import { originMatches } from './cors.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Why the request is refused as cross-site; undefined when it may pass. */
export function csrfRefusal(req: IncomingMessage, csrf: { additionalOrigins: string[] }): string | undefined {
  if (SAFE.has(req.method ?? 'GET')) return undefined;
  const origin = typeof req.headers.origin === 'string' ? req.headers.origin.toLowerCase() : undefined;
  if (origin && csrf.additionalOrigins.some((o) => originMatches(o, origin))) return undefined;
  const site = req.headers['sec-fetch-site'];
  if (site === 'same-origin' || site === 'none') return undefined;
  if (typeof site === 'string' && site !== '') return `a ${site} ${req.method} request is not allowed`;
  if (!origin) return undefined;
  const host = (req.headers.host ?? '').toLowerCase();
  if (origin === 'null' || hostOf(origin) !== host)
    return `origin ${origin} may not send ${req.method} requests to ${host}`;
  return undefined;
}

/** `scheme://host[:port]` → `host[:port]` (what a Host header holds). */
function hostOf(origin: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/]+)$/.exec(origin);
  return m?.[1];
}
