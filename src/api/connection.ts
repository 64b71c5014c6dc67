// Connection-level settings shared by frontend and backend policies: keepalive, TLS, HTTP, tunnel, health,
// header modifiers and transformations.
import {
  Type,
  ShortString,
  TinyString,
  CELExpression,
  Duration,
  HttpUrl,
  PseudoHeaderName,
  HeaderName,
  StringEnum,
  rules,
  rule,
  oneOf,
  atMostOne,
  type Static,
} from './schema-kit.js';
import { BackendRef, Group, SecretRef } from './refs.js';

export const Keepalive = Type.Object({
  retries: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, default: 9 })),
  time: Type.Optional(Duration({ default: '180s' })),
  interval: Type.Optional(Duration({ default: '180s' })),
});

export const KEY_EXCHANGE_GROUPS = ['X25519', 'P-256', 'P-384', 'X25519_MLKEM768'] as const;
export const KeyExchangeGroups = () => Type.Array(StringEnum(KEY_EXCHANGE_GROUPS), { minItems: 1, maxItems: 4 });
export const AlpnProtocols = () => Type.Array(TinyString(), { minItems: 1, maxItems: 16, default: ['h2', 'http/1.1'] });

export const BackendTCP = Type.Object({
  keepalive: Type.Optional(Keepalive),
  connectTimeout: Type.Optional(Duration()),
});

export const BackendTLS = Type.Object(
  {
    certificateSource: Type.Optional(StringEnum(['Inline', 'SPIFFE'] as const, { default: 'Inline' })),
    mtlsCertificateRef: Type.Optional(Type.Array(SecretRef, { maxItems: 1 })),
    caCertificateRefs: Type.Optional(
      Type.Array(
        Type.Object({
          group: Type.Optional(Group()),
          kind: Type.Optional(StringEnum(['ConfigMap', 'Secret'] as const, { default: 'ConfigMap' })),
          name: ShortString(),
        }),
        { maxItems: 1 },
      ),
    ),
    insecureSkipVerify: Type.Optional(StringEnum(['All', 'Hostname'] as const)),
    sni: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 253,
        pattern: '^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*$',
      }),
    ),
    verifySubjectAltNames: Type.Optional(Type.Array(ShortString(), { minItems: 1, maxItems: 16 })),
    alpnProtocols: Type.Optional(AlpnProtocols()),
    keyExchangeGroups: Type.Optional(KeyExchangeGroups()),
  },
  rules(
    atMostOne(['verifySubjectAltNames', 'insecureSkipVerify']),
    rule(
      "!has(self.certificateSource) || self.certificateSource != 'SPIFFE' || (!has(self.mtlsCertificateRef) && !has(self.caCertificateRefs))",
      'mtlsCertificateRef and caCertificateRefs may not be set when certificateSource is SPIFFE',
    ),
  ),
);

export const HTTPVersion = StringEnum(['HTTP1', 'HTTP2'] as const);
export const BackendHTTP = Type.Object({
  version: Type.Optional(HTTPVersion),
  requestTimeout: Type.Optional(Duration()),
});

export const BackendTunnel = Type.Object(
  {
    backendRef: Type.Optional(BackendRef),
    url: Type.Optional(HttpUrl()),
    mode: Type.Optional(StringEnum(['Auto', 'Connect'] as const, { default: 'Auto' })),
    /** A `kubernetes.io/basic-auth` Secret (keys `username`, `password`): sent as `Proxy-Authorization: Basic`. */
    secretRef: Type.Optional(SecretRef),
  },
  rules(oneOf(['backendRef', 'url'])),
);

/** Passive health (outlier detection): a backend failing `consecutiveFailures` times is ejected for `ejectionDuration`. */
export const Health = Type.Object({
  unhealthyCondition: Type.Optional(CELExpression()),
  consecutiveFailures: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 5 })),
  ejectionDuration: Type.Optional(Duration({ default: '30s' })),
  maxEjectionPercent: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 50 })),
});

const HeaderValue = () => Type.String({ maxLength: 4096 });
const HeaderList = (name: ReturnType<typeof HeaderName>) =>
  Type.Array(Type.Object({ name, value: HeaderValue() }), { minItems: 1, maxItems: 16 });
/** Header names are unique per list; a list-map (not CEL) so the check costs nothing in the API server's CEL budget. */
const uniqueNames = { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] };

/** Gateway API HTTPHeaderFilter: static header edits. */
export const HeaderFilter = Type.Object({
  set: Type.Optional(
    Type.Array(Type.Object({ name: HeaderName(), value: HeaderValue() }), {
      minItems: 1,
      maxItems: 16,
      ...uniqueNames,
    }),
  ),
  add: Type.Optional(HeaderList(HeaderName())),
  remove: Type.Optional(Type.Array(HeaderName(), { minItems: 1, maxItems: 16 })),
});
export const HeaderModifiers = Type.Object({
  request: Type.Optional(HeaderFilter),
  response: Type.Optional(HeaderFilter),
});

/** Like HTTPHeaderFilter, but values are CEL expressions over the request/response; `body` replaces the body. */
const TransformationStep = Type.Object({
  set: Type.Optional(
    Type.Array(Type.Object({ name: PseudoHeaderName(), value: CELExpression() }), {
      minItems: 1,
      maxItems: 16,
      ...uniqueNames,
    }),
  ),
  add: Type.Optional(
    Type.Array(Type.Object({ name: HeaderName(), value: CELExpression() }), { minItems: 1, maxItems: 16 }),
  ),
  remove: Type.Optional(Type.Array(HeaderName(), { minItems: 1, maxItems: 16 })),
  body: Type.Optional(CELExpression()),
});
export const Transformation = Type.Object({
  request: Type.Optional(TransformationStep),
  response: Type.Optional(TransformationStep),
});

export type BackendTLS = Static<typeof BackendTLS>;
export type Transformation = Static<typeof Transformation>;
