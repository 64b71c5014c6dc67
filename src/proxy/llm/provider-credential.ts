// The credential of one LLM provider (an `ai` backend's provider, or a GwModel) for one request: a key, the
// client's own token (`passthrough`), or a per-request identity (token exchange, cross-app access, signed JWT)
// obtained through the one path every edge uses (auth/backend-identity.ts). It goes in the vendor's own
// credential header unless a location says otherwise; a GwModel's extra `credentials` go at theirs. Cloud
// credentials (aws, azure, gcp) are added later, at send time (cloud-auth.ts). Behaviour: docs/auth.md
// "Backend identities" and docs/llm-providers.md.
import type { IncomingMessage } from 'node:http';
import { IdentityFailure, isIdentity, placed, type BackendIdentities, type Placed } from '../auth/backend-identity.js';
import { splitTarget } from '../http/route-match.js';
import { flatHeaders } from '../mcp/request.js';
import type { LlmProvider } from './llm-provider.js';

/** Who called, as authentication left it. */
export interface ProviderCaller {
  claims: Record<string, unknown> | null;
  /** The Authorization header as it arrived (authentication may remove it from the request). */
  authorization?: string;
  apiKey?: Record<string, unknown>;
}

/** Headers (and query parameters, as `?a=b` or '') carrying the credential, and the client's tokens that must not go upstream. */
export interface ProviderCredential {
  headers: Record<string, string>;
  query: string;
  spent: readonly string[];
}

/** A string: the client's to fix, answered 401 (a passthrough without a token). */
export async function providerCredential(
  identities: BackendIdentities,
  p: LlmProvider,
  caller: ProviderCaller,
  req: IncomingMessage,
): Promise<ProviderCredential | IdentityFailure | string> {
  const c = p.edge?.credential;
  let token: string | undefined;
  let location = p.credentialLocation;
  let spent: readonly string[] = [];
  if (c?.kind === 'key' && c.key) token = c.key;
  else if (c?.kind === 'passthrough') {
    token = /^Bearer\s+(\S+)\s*$/i.exec(caller.authorization ?? '')?.[1];
    if (!token) return `provider ${p.name} passes the client's bearer token through, and the request carries none`;
  } else if (c && isIdentity(c)) {
    const request = { method: req.method ?? 'POST', path: splitTarget(req.url).path, headers: flatHeaders(req) };
    const got = await identities.obtain(c, caller, request, `provider ${p.name}`);
    if (got instanceof IdentityFailure) return got;
    ({ token, spent } = got);
    location = got.location ?? location;
  }
  let out: Placed = { path: '', headers: { ...p.endpoint.fixedHeaders } };
  if (token !== undefined)
    out = location
      ? placed(out, token, location)
      : { ...out, headers: { ...out.headers, ...p.endpoint.credentialHeaders(token) } };
  for (const extra of p.extraCredentials ?? []) out = placed(out, extra.key, extra.location);
  return { headers: out.headers as Record<string, string>, query: out.path, spent };
}

/** `path` with the credential's query parameters added. */
export function withCredentialQuery(path: string, query: string): string {
  if (!query) return path;
  return path.includes('?') ? `${path}&${query.slice(1)}` : `${path}${query}`;
}
