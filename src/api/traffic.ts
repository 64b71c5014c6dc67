// Traffic (route-level) policy and the request-processing policies it holds (seed 001 "Other policies",
// ExtAuth, ExtProc; CORS/timeouts/retry shaped like Gateway API's HTTPRoute filters).
import {
  Type,
  ShortString,
  LongString,
  CELExpression,
  Duration,
  ByteSize,
  HeaderName,
  StringEnum,
  MapOf,
  FailureMode,
  DURATION_PATTERN,
  rules,
  rule,
  oneOf,
  atMostOne,
  type Static,
} from './schema-kit.js';
import { RemoteTarget } from './refs.js';
import { Authorization, JWTAuthentication, APIKeyAuthentication, BasicAuthentication } from './authn.js';
import { HeaderModifiers, Transformation } from './connection.js';

/** Only the last entry of a conditional list may omit `condition`: it is the fallback. */
const lastMayOmitCondition = rule(
  'self.filter(e, !has(e.condition)).size() == 0 || (self.filter(e, !has(e.condition)).size() == 1 && !has(self[self.size() - 1].condition))',
  'only the last entry may omit condition (it is the fallback)',
);

const extAuthFields = {
  ...RemoteTarget,
  failureMode: Type.Optional(FailureMode()),
  grpc: Type.Optional(
    Type.Object({
      contextExtensions: Type.Optional(MapOf(LongString())),
      requestMetadata: Type.Optional(MapOf(CELExpression())),
    }),
  ),
  http: Type.Optional(
    Type.Object({
      path: Type.Optional(CELExpression()),
      redirect: Type.Optional(CELExpression()),
      body: Type.Optional(CELExpression()),
      allowedRequestHeaders: Type.Optional(
        Type.Array(HeaderName(), { minItems: 1, maxItems: 64, default: ['Authorization'] }),
      ),
      addRequestHeaders: Type.Optional(MapOf(CELExpression())),
      allowedResponseHeaders: Type.Optional(Type.Array(HeaderName(), { minItems: 1, maxItems: 64 })),
      responseMetadata: Type.Optional(MapOf(CELExpression())),
    }),
  ),
  forwardBody: Type.Optional(Type.Object({ maxSize: ByteSize() })),
  cache: Type.Optional(
    Type.Object({
      key: Type.Array(CELExpression(), { minItems: 1, maxItems: 16 }),
      ttl: Duration(),
      maxEntries: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000000, default: 10000 })),
    }),
  ),
};
const ExtAuth = Type.Object(extAuthFields, rules(oneOf(['backendRef', 'url']), atMostOne(['grpc', 'http'])));

/** ExtAuth, or a `conditional` list of them picked by CEL condition. */
export const ExtAuthPolicy = Type.Object(
  {
    ...extAuthFields,
    conditional: Type.Optional(
      Type.Array(Type.Object({ condition: Type.Optional(CELExpression()), policy: ExtAuth }), {
        minItems: 1,
        maxItems: 16,
        ...rules(lastMayOmitCondition),
      }),
    ),
  },
  rules(
    oneOf(['backendRef', 'url', 'conditional']),
    atMostOne(['grpc', 'http']),
    rule(
      '!has(self.conditional) || !(has(self.failureMode) || has(self.grpc) || has(self.http) || has(self.forwardBody) || has(self.cache))',
      'failureMode, grpc, http, forwardBody and cache go inside each conditional entry, not beside conditional',
    ),
  ),
);

const HeaderMode = () => StringEnum(['Send', 'Skip'] as const);
export const BODY_SEND_MODES = ['None', 'Buffered', 'BufferedPartial', 'FullDuplexStreamed'] as const;
export const ExtProc = Type.Object(
  {
    ...RemoteTarget,
    failureMode: Type.Optional(FailureMode({ default: 'FailClosed' })),
    processingOptions: Type.Optional(
      Type.Object({
        requestHeaders: Type.Optional(HeaderMode()),
        responseHeaders: Type.Optional(HeaderMode()),
        requestBody: Type.Optional(StringEnum(BODY_SEND_MODES)),
        responseBody: Type.Optional(StringEnum(BODY_SEND_MODES)),
        requestTrailers: Type.Optional(HeaderMode()),
        responseTrailers: Type.Optional(HeaderMode()),
        timeout: Type.Optional(Duration()),
      }),
    ),
    metadataContext: Type.Optional(MapOf(CELExpression())),
    requestAttributes: Type.Optional(MapOf(CELExpression())),
    responseAttributes: Type.Optional(MapOf(CELExpression())),
  },
  rules(oneOf(['backendRef', 'url'])),
);

const directResponseFields = {
  status: Type.Optional(Type.Integer({ minimum: 200, maximum: 599 })),
  body: Type.Optional(Type.String({ maxLength: 4096 })),
  bodyExpression: Type.Optional(CELExpression()),
  headers: Type.Optional(
    Type.Array(Type.Object({ name: HeaderName(), value: CELExpression() }), { minItems: 1, maxItems: 16 }),
  ),
};
const bodyOnce = atMostOne(['body', 'bodyExpression']);
const DirectResponse = Type.Object(
  { ...directResponseFields, status: Type.Integer({ minimum: 200, maximum: 599 }) },
  rules(bodyOnce),
);
export const DirectResponsePolicy = Type.Object(
  {
    ...directResponseFields,
    conditional: Type.Optional(
      Type.Array(Type.Object({ condition: Type.Optional(CELExpression()), response: DirectResponse }), {
        minItems: 1,
        maxItems: 16,
        ...rules(lastMayOmitCondition),
      }),
    ),
  },
  rules(
    oneOf(['status', 'conditional']),
    bodyOnce,
    rule(
      '!has(self.conditional) || !(has(self.body) || has(self.bodyExpression) || has(self.headers))',
      'body, bodyExpression and headers go inside each conditional entry, not beside conditional',
    ),
  ),
);

/** A duration literal (`100ms`) or a CEL expression yielding one. */
export const Delay = Type.Object({
  duration: Type.String({ minLength: 1, maxLength: 16384, 'x-gw-cel-or-duration': DURATION_PATTERN }),
});

export const LocalRateLimit = Type.Object(
  {
    requests: Type.Optional(Type.Integer({ minimum: 1 })),
    tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    unit: StringEnum(['Seconds', 'Minutes', 'Hours'] as const),
    burst: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  rules(oneOf(['requests', 'tokens'])),
);

/** One descriptor entry: `name` is the descriptor key, `expression` CEL whose text value is the entry's value. */
const GlobalRateLimitEntry = Type.Object({ name: ShortString(), expression: CELExpression() });

/**
 * `rateLimit.global` (agentgateway's name and shape): limits kept by an Envoy rate-limit service
 * (envoy.service.ratelimit.v3), shared by every proxy replica. Each descriptor is sent when all its entries
 * evaluate; `unit: Tokens` descriptors count an LLM answer's tokens, charged after the answer.
 */
export const GlobalRateLimit = Type.Object(
  {
    ...RemoteTarget,
    domain: ShortString(),
    descriptors: Type.Array(
      Type.Object({
        entries: Type.Array(GlobalRateLimitEntry, { minItems: 1, maxItems: 16 }),
        unit: Type.Optional(StringEnum(['Requests', 'Tokens'] as const, { default: 'Requests' })),
      }),
      { minItems: 1, maxItems: 16 },
    ),
    failureMode: Type.Optional(FailureMode()),
    timeout: Type.Optional(Duration()),
  },
  rules(oneOf(['backendRef', 'url'])),
);

export const RateLimit = Type.Object(
  {
    local: Type.Optional(Type.Array(LocalRateLimit, { minItems: 1, maxItems: 16 })),
    global: Type.Optional(GlobalRateLimit),
  },
  rules(rule('has(self.local) || has(self.global)', 'set local, global or both')),
);

export const CSRF = Type.Object({
  additionalOrigins: Type.Optional(
    Type.Array(
      Type.String({ minLength: 1, maxLength: 1024, pattern: '^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#@\\s:]+(:[0-9]{1,5})?$' }),
      { minItems: 1, maxItems: 16 },
    ),
  ),
});

const BufferLimit = Type.Object({
  maxBytes: Type.Optional(ByteSize({ default: '2Mi' })),
  failureMode: Type.Optional(FailureMode({ default: 'FailClosed' })),
});
export const Buffer = Type.Object({ request: Type.Optional(BufferLimit), response: Type.Optional(BufferLimit) });

export const HTTP_METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
  '*',
] as const;
/** Gateway API HTTPCORSFilter. */
export const CORS = Type.Object({
  allowOrigins: Type.Optional(
    Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 253,
        pattern: '^(\\*|[a-zA-Z][a-zA-Z0-9+.-]*://(\\*\\.)?[^/?#@\\s:*]+(:[0-9]{1,5})?)$',
      }),
      { minItems: 1, maxItems: 64 },
    ),
  ),
  allowMethods: Type.Optional(
    Type.Array(StringEnum(HTTP_METHODS), {
      minItems: 1,
      maxItems: 9,
      ...rules(rule("!('*' in self) || self.size() == 1", "'*' must be the only entry of allowMethods")),
    }),
  ),
  allowHeaders: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 256, pattern: "^(\\*|[A-Za-z0-9!#$%&'+.^_`|~-]+)$" }), {
      minItems: 1,
      maxItems: 64,
    }),
  ),
  exposeHeaders: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 256, pattern: "^(\\*|[A-Za-z0-9!#$%&'+.^_`|~-]+)$" }), {
      minItems: 1,
      maxItems: 64,
    }),
  ),
  maxAge: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400, default: 5 })),
  allowCredentials: Type.Optional(Type.Boolean()),
});

/** Gateway API HTTPRouteTimeouts. */
export const Timeouts = Type.Object({ request: Type.Optional(Duration()), backendRequest: Type.Optional(Duration()) });

/** Gateway API HTTPRouteRetry. */
export const Retry = Type.Object({
  attempts: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: 1 })),
  backoff: Type.Optional(Duration()),
  codes: Type.Optional(Type.Array(Type.Integer({ minimum: 400, maximum: 599 }), { minItems: 1, maxItems: 16 })),
});

export const TrafficPolicy = Type.Object({
  cors: Type.Optional(CORS),
  headerModifiers: Type.Optional(HeaderModifiers),
  timeouts: Type.Optional(Timeouts),
  retry: Type.Optional(Retry),
  jwtAuthentication: Type.Optional(JWTAuthentication),
  apiKeyAuthentication: Type.Optional(APIKeyAuthentication),
  basicAuthentication: Type.Optional(BasicAuthentication),
  authorization: Type.Optional(Authorization),
  extAuth: Type.Optional(ExtAuthPolicy),
  extProc: Type.Optional(ExtProc),
  rateLimit: Type.Optional(RateLimit),
  directResponse: Type.Optional(DirectResponsePolicy),
  delay: Type.Optional(Delay),
  csrf: Type.Optional(CSRF),
  buffer: Type.Optional(Buffer),
  transformation: Type.Optional(Transformation),
  hostRewrite: Type.Optional(ShortString()),
});

export type TrafficPolicy = Static<typeof TrafficPolicy>;
export type ExtAuthPolicy = Static<typeof ExtAuthPolicy>;
export type ExtProc = Static<typeof ExtProc>;
export type DirectResponsePolicy = Static<typeof DirectResponsePolicy>;
export type LocalRateLimit = Static<typeof LocalRateLimit>;
export type GlobalRateLimit = Static<typeof GlobalRateLimit>;
export type CORS = Static<typeof CORS>;
