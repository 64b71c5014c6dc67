// Requests the proxy makes on its own behalf over the TLS the translator resolved for a backendRef: signing
// keys of `jwks.remote.backendRef` (JwtProvider.jwksTls) and token requests to a token endpoint named by a
// backendRef (TokenExchangeCredential.tls). The same dispatchers as TLS to HTTP backends (CA, SNI, client
// certificate, subject names), pooled per settings so a snapshot apply that keeps them keeps the connection.
// Caching and refresh stay the callers' (jwks-cache.ts, token-exchange.ts).
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
    return pooledTlsFetch(pool, 'jwks')(tls, url);
  };
}

/**
 * A `fetch` over `pool`'s dispatcher for `tls` (method, headers, string body and signal of `init` are sent; the
 * answer's status and body come back). `purpose` names the dispatcher in the pool's logs (`jwks`, `token endpoint`).
 */
export function pooledTlsFetch(pool: UpstreamTlsPool, purpose: string): JwksTlsFetch {
  return (tls, url) => {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return (async (input: string | URL | Request, init?: RequestInit) => {
      const body = typeof init?.body === 'string' ? init.body : undefined;
      const res = await request(String(input instanceof Request ? input.url : input), {
        dispatcher: pool.dispatcher(`${purpose} ${url}`, host, tls),
        method: (init?.method ?? 'GET') as 'GET',
        headers: (init?.headers as Record<string, string> | undefined) ?? {},
        ...(body !== undefined ? { body } : {}),
        ...(init?.signal ? { signal: init.signal } : {}),
      });
      const text = await res.body.text();
      return new Response(text, { status: res.statusCode < 200 ? 502 : res.statusCode });
    }) as typeof fetch;
  };
}
