// Client authentication and CEL authorization policies (seed 001 "Authorization (CEL)" and "Authentication policies").
import {
  Type,
  ShortString,
  LongString,
  TinyString,
  CELExpression,
  Duration,
  HeaderName,
  StringEnum,
  MapOf,
  Json,
  StrictMode,
  rules,
  oneOf,
  rule,
} from './schema-kit.js';
import { RemoteTarget, remoteTargetRule, SecretRef, SecretKeyRef } from './refs.js';

export const AuthorizationLocation = Type.Object(
  {
    header: Type.Optional(Type.Object({ name: HeaderName(), prefix: Type.Optional(TinyString()) })),
    queryParameter: Type.Optional(Type.Object({ name: ShortString() })),
    cookie: Type.Optional(Type.Object({ name: ShortString() })),
  },
  rules(oneOf(['header', 'queryParameter', 'cookie'])),
);

export const AuthorizationExtractionLocation = Type.Object(
  {
    header: Type.Optional(Type.Object({ name: HeaderName(), prefix: Type.Optional(TinyString()) })),
    queryParameter: Type.Optional(Type.Object({ name: ShortString() })),
    cookie: Type.Optional(Type.Object({ name: ShortString() })),
    expression: Type.Optional(CELExpression()),
  },
  rules(oneOf(['header', 'queryParameter', 'cookie', 'expression'])),
);

export const Authorization = Type.Object({
  policy: Type.Object({ matchExpressions: Type.Array(CELExpression(), { minItems: 1, maxItems: 256 }) }),
  action: Type.Optional(StringEnum(['Allow', 'Deny', 'Require'] as const, { default: 'Allow' })),
});

export const McpIDP = StringEnum(['IdpA', 'IdpB', 'IdpC', 'IdpD', 'IdpE', 'IdpF'] as const);

/** Where the signing keys come from: fetched (and cached) from a URL or service, or inline. */
export const RemoteJWKS = Type.Object(
  {
    ...RemoteTarget,
    /** With backendRef; `/.well-known/jwks.json` when unset (no schema default: it would collide with url). */
    path: Type.Optional(LongString({ pattern: '^/' })),
    cacheDuration: Type.Optional(Duration({ default: '5m' })),
  },
  rules(
    remoteTargetRule,
    rule(
      '!has(self.url) || !has(self.path)',
      'path may only be set with backendRef; put the path in url instead',
      '.path',
    ),
  ),
);

const Audiences = () => Type.Array(ShortString(), { minItems: 1, maxItems: 64 });

export const JWTProvider = Type.Object({
  issuer: ShortString(),
  audiences: Type.Optional(Audiences()),
  jwks: Type.Object(
    {
      remote: Type.Optional(RemoteJWKS),
      inline: Type.Optional(Type.String({ minLength: 2, maxLength: 65536 })),
    },
    rules(oneOf(['remote', 'inline'])),
  ),
});

export const JWTAuthentication = Type.Object({
  mode: Type.Optional(StrictMode()),
  providers: Type.Array(JWTProvider, { minItems: 1, maxItems: 64 }),
  location: Type.Optional(AuthorizationExtractionLocation),
  preserveToken: Type.Optional(Type.Boolean({ default: false })),
  mcp: Type.Optional(
    Type.Object({
      resourceMetadata: Type.Optional(MapOf(Json())),
      provider: Type.Optional(McpIDP),
      clientId: Type.Optional(ShortString()),
    }),
  ),
});

/** Deprecated field form of MCP authentication on BackendMCP; prefer traffic `jwtAuthentication.mcp`. */
export const MCPAuthentication = Type.Object({
  resourceMetadata: Type.Optional(MapOf(Json())),
  provider: Type.Optional(McpIDP),
  issuer: Type.Optional(ShortString()),
  audiences: Type.Optional(Audiences()),
  jwks: Type.Object({ ...RemoteTarget, path: Type.Optional(LongString({ pattern: '^/' })) }, rules(remoteTargetRule)),
  mode: Type.Optional(StrictMode()),
  clientId: Type.Optional(ShortString()),
  clientSecretRef: Type.Optional(SecretKeyRef('clientSecret')),
});

const MatchLabelsSelector = Type.Object({ matchLabels: MapOf(Type.String({ maxLength: 63 }), { minProperties: 1 }) });

export const APIKeyAuthentication = Type.Object(
  {
    mode: Type.Optional(StrictMode()),
    secretRef: Type.Optional(SecretRef),
    secretSelector: Type.Optional(MatchLabelsSelector),
    configMapSelector: Type.Optional(MatchLabelsSelector),
    location: Type.Optional(AuthorizationExtractionLocation),
  },
  rules(oneOf(['secretRef', 'secretSelector', 'configMapSelector'])),
);

export const BasicAuthentication = Type.Object(
  {
    users: Type.Optional(Type.Array(LongString({ pattern: '^[^:\\s]+:\\S+$' }), { minItems: 1, maxItems: 256 })),
    secretRef: Type.Optional(SecretKeyRef('.htaccess')),
    mode: Type.Optional(StringEnum(['Strict', 'Optional'] as const, { default: 'Strict' })),
    realm: Type.Optional(ShortString({ default: 'Restricted' })),
    location: Type.Optional(AuthorizationLocation),
  },
  rules(oneOf(['users', 'secretRef'])),
);
