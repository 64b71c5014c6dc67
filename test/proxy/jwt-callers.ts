// Callers with real JWTs on an MCP route: a signing key, its JWKS served on 127.0.0.1, the route's
// `mcpAuthentication` policy that trusts them, and a token for any claims (`sub` names the caller).
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import type { ConfigFile } from '../../src/config/schema.js';
import { makeSigningKey } from '../support/oidc/provider.js';
import { startJwksServer } from '../support/oidc/jwks-server.js';

type McpAuthentication = NonNullable<NonNullable<ConfigFile['mcp']['policies']>['mcpAuthentication']>;

export interface JwtCallers {
  /** The route policy (strict) that accepts the tokens. */
  policy: McpAuthentication;
  token(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startJwtCallers(
  issuer = 'https://issuer.test',
  audience = 'https://mcp.test/mcp',
): Promise<JwtCallers> {
  const key = await makeSigningKey('k1');
  const privateKey = (await importJWK(key.privateJwk, 'RS256')) as CryptoKey;
  const jwks = await startJwksServer([key.publicJwk]);
  return {
    policy: { mode: 'strict', issuer, audiences: [audience], jwks: jwks.url, resourceMetadata: { resource: audience } },
    token: (claims) =>
      new SignJWT({ iss: issuer, aud: audience, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey),
    close: () => jwks.close(),
  };
}
