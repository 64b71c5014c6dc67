// The settings the proxy hands to the MCP auth module (standalone `mcpAuthentication`, or the
// CRD's jwtAuthentication.mcp translated into the same shape).
import type { BackendTls, JwtProvider, TokenLocation } from '../../ir/types.js';

export type McpProviderName = 'idpa' | 'idpb' | 'idpc' | 'idpd' | 'idpe' | 'idpf';

export interface McpAuthSettings {
  mode: 'strict' | 'optional' | 'permissive';
  issuer: string;
  /** Accepted `aud` values; unset or empty: any audience. */
  audiences?: string[];
  provider?: McpProviderName;
  clientId?: string;
  clientSecret?: string;
  resourceMetadata?: {
    resource?: string;
    scopesSupported?: string[];
    bearerMethodsSupported?: string[];
    extra?: Record<string, unknown>;
  };
  /** Signing-key URL override. */
  jwks?: string;
  /** Inline JWKS JSON (controller-delivered); wins over any URL. */
  jwksInline?: string;
  /** Fetched keys are refetched on first use after this long (default 5 minutes). */
  jwksCacheSeconds?: number;
  /** Keys through a backendRef: `jwks` is fetched with this TLS only (controller-delivered). */
  jwksTls?: BackendTls;
  /** jwtAuthentication.providers[1..]: tokens of these issuers are accepted too (discovery names only the first). */
  moreProviders?: JwtProvider[];
  /** Where the token is read; unset means `Authorization: Bearer`. */
  location?: TokenLocation;
  /** Where the MCP endpoint is mounted, e.g. `/mcp`. */
  mcpPath: string;
}
