// Discovery documents: RFC 9728 protected-resource metadata and RFC 8414 authorization-server metadata.
import type { Logger } from 'pino';
import type { McpAuthSettings } from './settings.js';
import type { ProviderPlan } from './provider.js';

/** The newest MCP revision the gateway serves (2025-era clients are served on the same endpoint). */
export const mcpProtocolVersion = '2026-07-28';

/** Gateway-owned OAuth endpoints live under one prefix so they never collide with routed MCP paths. */
export const oauthPrefix = '/.well-known/oauth-authorization-server';
export const registrationPath = `${oauthPrefix}/client-registration`;
export const authorizePath = `${oauthPrefix}/authorize`;
export const tokenPath = `${oauthPrefix}/token`;

export function protectedResourcePath(mcpPath: string): string {
  return `/.well-known/oauth-protected-resource${mcpPath === '/' ? '' : mcpPath}`;
}

export function protectedResourceMetadata(s: McpAuthSettings, base: string): Record<string, unknown> {
  const rm = s.resourceMetadata ?? {};
  return {
    ...(rm.extra ?? {}),
    resource: rm.resource ?? `${base}${s.mcpPath}`,
    authorization_servers: [`${base}${s.mcpPath}`],
    mcp_protocol_version: mcpProtocolVersion,
    resource_type: 'mcp-server',
    bearer_methods_supported: rm.bearerMethodsSupported ?? ['header'],
    scopes_supported: rm.scopesSupported ?? [],
  };
}

/**
 * Rewrites the provider's document: our registration endpoint, and for IdpF our authorize / token proxies,
 * which also accept Client ID Metadata Documents. Elsewhere clients meet the provider's own authorize endpoint,
 * so its own `client_id_metadata_document_supported` (or none) is what holds.
 */
export function authorizationServerMetadata(
  plan: ProviderPlan,
  upstream: Record<string, unknown>,
  base: string,
): Record<string, unknown> {
  const doc: Record<string, unknown> = { ...upstream, registration_endpoint: `${base}${registrationPath}` };
  if (plan.kind === 'idpf') {
    doc.authorization_endpoint = `${base}${authorizePath}`;
    doc.token_endpoint = `${base}${tokenPath}`;
    doc.code_challenge_methods_supported = ['S256'];
    doc.client_id_metadata_document_supported = true;
  }
  if (!Array.isArray(doc.response_types_supported)) doc.response_types_supported = ['code'];
  return Object.fromEntries(Object.entries(doc).sort(([a], [b]) => a.localeCompare(b)));
}

export interface UpstreamMetadata {
  get(): Promise<Record<string, unknown>>;
}

/** The provider's discovery document, fetched on first use and kept for `ttlMs` (a stale copy outlives fetch failures). */
export function createUpstreamMetadata(
  urls: string[],
  deps: { fetch: typeof fetch; now: () => number; log: Logger },
  ttlMs = 5 * 60_000,
): UpstreamMetadata {
  let cached: { doc: Record<string, unknown>; at: number } | undefined;
  let inflight: Promise<Record<string, unknown>> | undefined;
  const load = async (): Promise<Record<string, unknown>> => {
    for (const url of urls) {
      try {
        const res = await deps.fetch(url, {
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(5_000),
        });
        if (!res.ok) {
          await res.body?.cancel();
          continue;
        }
        const doc: unknown = await res.json();
        if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) {
          cached = { doc: doc as Record<string, unknown>, at: deps.now() };
          return cached.doc;
        }
      } catch (err) {
        deps.log.warn({ url, err: (err as Error).message }, 'authorization server metadata could not be fetched');
      }
    }
    if (cached) return cached.doc;
    throw new Error('authorization server metadata is unavailable');
  };
  return {
    get() {
      if (cached && deps.now() - cached.at < ttlMs) return Promise.resolve(cached.doc);
      inflight ??= load().finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
  };
}
