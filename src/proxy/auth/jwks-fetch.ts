// Signing keys fetched over the TLS the translator resolved for `jwks.remote.backendRef` (JwtProvider.jwksTls):
// the same dispatchers as TLS to HTTP backends (CA, SNI, client certificate, subject names), pooled per
// settings so a snapshot apply that keeps them keeps the connection. Caching and refresh stay jwks-cache.ts's.
import type { Logger } from 'pino';
import type { BackendTls } from '../../ir/types.js';
import { request } from '../http/undici.js';
import { UpstreamTlsPool } from '../http/upstream-tls.js';

export type JwksTlsFetch = (tls: BackendTls, url: string) => typeof fetch;

/** One pool for the runtime's key fetches; built on first use with the first route's logger. */
export function jwksTlsFetcher(): (log: Logger) => JwksTlsFetch {
  let pool: UpstreamTlsPool | undefined;
  return (log) => (tls, url) => {
    pool ??= new UpstreamTlsPool({ log, connectTimeoutMs: 5_000, headersTimeoutMs: 5_000 });
    const p = pool;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return (async (input: string | URL | Request, init?: RequestInit) => {
      const res = await request(String(input instanceof Request ? input.url : input), {
        dispatcher: p.dispatcher(`jwks ${url}`, host, tls),
        headers: (init?.headers as Record<string, string> | undefined) ?? {},
        ...(init?.signal ? { signal: init.signal } : {}),
      });
      const text = await res.body.text();
      return new Response(text, { status: res.statusCode < 200 ? 502 : res.statusCode });
    }) as typeof fetch;
  };
}
