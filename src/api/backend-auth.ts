// How the gateway authenticates to upstreams (seed 001 BackendAuth and its variants).
import {
  Type,
  ShortString,
  LongString,
  TinyString,
  CELExpression,
  Duration,
  StringEnum,
  MapOf,
  rules,
  rule,
  oneOf,
  atMostOne,
  type Static,
} from './schema-kit.js';
import { RemoteTarget, remoteTargetRule, SecretRef, SecretKeyRef } from './refs.js';
import { AuthorizationLocation } from './authn.js';

const Scopes = () => Type.Array(ShortString(), { minItems: 1, maxItems: 64 });
const AwsRegion = (o = {}) => Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9-]+$', ...o });

export const AwsAuth = Type.Object({
  secretRef: Type.Optional(SecretRef),
  assumeRole: Type.Optional(
    Type.Object(
      {
        roleArn: LongString({ pattern: '^arn:' }),
        sessionName: Type.Optional(Type.String({ minLength: 2, maxLength: 64, pattern: '^[A-Za-z0-9+=,.@_-]+$' })),
        sessionNameExpression: Type.Optional(CELExpression()),
        tags: Type.Optional(
          Type.Array(
            Type.Object(
              {
                key: Type.String({ minLength: 1, maxLength: 128 }),
                value: Type.Optional(Type.String({ maxLength: 256 })),
                expression: Type.Optional(CELExpression()),
              },
              rules(oneOf(['value', 'expression'])),
            ),
            { maxItems: 50 },
          ),
        ),
      },
      rules(atMostOne(['sessionName', 'sessionNameExpression'])),
    ),
  ),
  serviceName: Type.Optional(TinyString()),
  region: Type.Optional(AwsRegion()),
});

export const AzureAuth = Type.Object(
  {
    secretRef: Type.Optional(SecretRef),
    managedIdentity: Type.Optional(
      Type.Object(
        {
          clientId: Type.Optional(ShortString()),
          objectId: Type.Optional(ShortString()),
          resourceId: Type.Optional(LongString()),
        },
        rules(atMostOne(['clientId', 'objectId', 'resourceId'])),
      ),
    ),
    workloadIdentity: Type.Optional(Type.Object({})),
  },
  rules(atMostOne(['secretRef', 'managedIdentity', 'workloadIdentity'])),
);

export const GcpAuth = Type.Object(
  {
    type: Type.Optional(StringEnum(['AccessToken', 'IdToken'] as const, { default: 'AccessToken' })),
    secretRef: Type.Optional(SecretKeyRef('credentials.json')),
    audience: Type.Optional(ShortString()),
  },
  rules(
    rule(
      "!has(self.audience) || (has(self.type) && self.type == 'IdToken')",
      'audience may only be set when type is IdToken',
      '.audience',
    ),
  ),
);

export const TokenType = (o = {}) =>
  Type.String({
    minLength: 1,
    maxLength: 256,
    pattern: '^(AccessToken|Jwt|IdToken|IdJag|[a-zA-Z][a-zA-Z0-9+.-]*:[^\\s]+)$',
    ...o,
  });

/** A token taken from the request: `source` is a CEL expression yielding the token string. */
const TokenSource = Type.Object({ source: Type.Optional(CELExpression()), tokenType: Type.Optional(TokenType()) });

export const JwtAlg = StringEnum(['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'] as const);

export const OAuthClientAuth = Type.Object(
  {
    clientId: ShortString(),
    secretRef: Type.Optional(SecretKeyRef('clientSecret')),
    privateKeyJwt: Type.Optional(
      Type.Object(
        {
          signingKeyRef: SecretKeyRef('signingKey'),
          certificateRef: Type.Optional(SecretKeyRef('tls.crt')),
          certificateHeader: Type.Optional(StringEnum(['x5c', 'x5t#S256'] as const)),
          alg: Type.Optional(
            StringEnum(['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'] as const, { default: 'RS256' }),
          ),
          kid: Type.Optional(ShortString()),
          assertionAudience: ShortString(),
        },
        rules(
          rule(
            '!has(self.certificateHeader) || has(self.certificateRef)',
            'certificateHeader may only be set together with certificateRef',
            '.certificateHeader',
          ),
        ),
      ),
    ),
    method: Type.Optional(
      StringEnum(['ClientSecretBasic', 'ClientSecretPost', 'PrivateKeyJwt'] as const, { default: 'ClientSecretBasic' }),
    ),
  },
  rules(
    rule(
      "(has(self.method) && self.method == 'PrivateKeyJwt') == has(self.privateKeyJwt)",
      'privateKeyJwt must be set exactly when method is PrivateKeyJwt',
    ),
  ),
);

export const OAuthTokenCache = Type.Object({
  inMemory: Type.Optional(
    Type.Object({
      maxEntries: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000000, default: 8192 })),
      defaultTtl: Type.Optional(Duration({ default: '300s' })),
    }),
  ),
});

export const OAuthTokenExchange = Type.Object(
  {
    ...RemoteTarget,
    path: Type.Optional(LongString({ pattern: '^/', default: '/' })),
    grantType: Type.Optional(StringEnum(['TokenExchange', 'JwtBearer'] as const, { default: 'TokenExchange' })),
    subjectToken: Type.Optional(TokenSource),
    actorToken: Type.Optional(
      Type.Object({
        source: CELExpression(),
        tokenType: Type.Optional(TokenType()),
        mayAct: Type.Optional(StringEnum(['Required'] as const)),
      }),
    ),
    audiences: Type.Optional(Scopes()),
    scopes: Type.Optional(Scopes()),
    resources: Type.Optional(Type.Array(LongString(), { minItems: 1, maxItems: 64 })),
    requestedTokenType: Type.Optional(StringEnum(['AccessToken', 'Jwt', 'IdToken', 'IdJag'] as const)),
    additionalParams: Type.Optional(MapOf(CELExpression())),
    clientAuth: Type.Optional(OAuthClientAuth),
    location: Type.Optional(AuthorizationLocation),
    cache: Type.Optional(OAuthTokenCache),
  },
  rules(remoteTargetRule),
);

const OAuthEndpoint = Type.Object(
  { ...RemoteTarget, path: Type.Optional(LongString({ pattern: '^/' })), clientAuth: OAuthClientAuth },
  rules(remoteTargetRule),
);

export const CrossAppAccessAuth = Type.Object({
  identityProvider: OAuthEndpoint,
  resourceAuthorizationServer: OAuthEndpoint,
  audience: ShortString(),
  resources: Type.Optional(Type.Array(LongString(), { minItems: 1, maxItems: 64 })),
  scopes: Type.Optional(Scopes()),
  accessTokenScopes: Type.Optional(Scopes()),
  subjectToken: Type.Optional(TokenSource),
  cache: Type.Optional(OAuthTokenCache),
});

/**
 * Static claims: any JSON object. The reserved claims are declared (as integers) only so a CEL rule can see
 * them: the API server hides undeclared fields of preserve-unknown objects from CEL.
 */
function StaticClaims() {
  const reserved = { type: 'integer' };
  return Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    maxProperties: 64,
    properties: { iat: reserved, exp: reserved, nbf: reserved },
    ...rules(
      rule(
        '!has(self.iat) && !has(self.exp) && !has(self.nbf)',
        'claims must not set the reserved claims iat, exp or nbf',
      ),
    ),
  });
}

export const JwtSignAuth = Type.Object({
  signingKeyRef: SecretKeyRef('signingKey'),
  alg: Type.Optional(StringEnum(['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384'] as const, { default: 'RS256' })),
  kid: Type.Optional(ShortString()),
  claims: Type.Optional(StaticClaims()),
  ttl: Type.Optional(Duration({ default: '300s' })),
  location: Type.Optional(AuthorizationLocation),
});

const commonAuth = {
  key: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  secretRef: Type.Optional(SecretKeyRef('Authorization')),
  passthrough: Type.Optional(Type.Object({})),
  aws: Type.Optional(AwsAuth),
  azure: Type.Optional(AzureAuth),
  gcp: Type.Optional(GcpAuth),
  oauthTokenExchange: Type.Optional(OAuthTokenExchange),
};
const COMMON = ['key', 'secretRef', 'passthrough', 'aws', 'azure', 'gcp', 'oauthTokenExchange'];

export const BackendAuth = Type.Object(
  { ...commonAuth, crossAppAccess: Type.Optional(CrossAppAccessAuth), jwtSign: Type.Optional(JwtSignAuth) },
  rules(atMostOne([...COMMON, 'crossAppAccess', 'jwtSign'])),
);

export const ModelBackendAuth = Type.Object(
  {
    ...commonAuth,
    location: Type.Optional(AuthorizationLocation),
    credentials: Type.Optional(
      Type.Array(
        Type.Object(
          {
            key: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
            secretRef: Type.Optional(SecretKeyRef('Authorization')),
            location: AuthorizationLocation,
          },
          rules(oneOf(['key', 'secretRef'])),
        ),
        { minItems: 1, maxItems: 8 },
      ),
    ),
  },
  rules(atMostOne(COMMON)),
);

export { AwsRegion };
export type BackendAuth = Static<typeof BackendAuth>;
export type ModelBackendAuth = Static<typeof ModelBackendAuth>;
