// Frontend (downstream, Gateway-level) policy: seed 001 "Frontend" and FrontendHTTP.
import {
  Type,
  ShortString,
  TinyString,
  CELExpression,
  Duration,
  ByteSize,
  StringEnum,
  rules,
  rule,
  onlyWith,
  type Static,
} from './schema-kit.js';
import { RemoteTarget, remoteTargetRule } from './refs.js';
import { Authorization } from './authn.js';
import { Keepalive, AlpnProtocols, KeyExchangeGroups } from './connection.js';

export const CIPHER_SUITES = [
  'TLS13_AES_256_GCM_SHA384',
  'TLS13_AES_128_GCM_SHA256',
  'TLS13_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
] as const;
export const TLS_VERSIONS = ['TLS1_2', 'TLS1_3'] as const;

const FrontendTLS = Type.Object(
  {
    handshakeTimeout: Type.Optional(Duration({ default: '15s' })),
    alpnProtocols: Type.Optional(AlpnProtocols()),
    minProtocolVersion: Type.Optional(StringEnum(TLS_VERSIONS)),
    maxProtocolVersion: Type.Optional(StringEnum(TLS_VERSIONS)),
    cipherSuites: Type.Optional(Type.Array(StringEnum(CIPHER_SUITES), { minItems: 1, maxItems: 9 })),
    keyExchangeGroups: Type.Optional(KeyExchangeGroups()),
  },
  rules(
    rule(
      '!has(self.minProtocolVersion) || !has(self.maxProtocolVersion) || self.minProtocolVersion <= self.maxProtocolVersion',
      'minProtocolVersion must not be greater than maxProtocolVersion',
    ),
  ),
);

export const FrontendHTTP = Type.Object(
  {
    maxBufferSize: Type.Optional(ByteSize({ default: '2mb' })),
    http1MaxHeaders: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096, default: 100 })),
    http1IdleTimeout: Type.Optional(Duration({ default: '10m' })),
    http1HeaderCase: Type.Optional(StringEnum(['Lowercase', 'Preserve'] as const)),
    http2WindowSize: Type.Optional(ByteSize()),
    http2ConnectionWindowSize: Type.Optional(ByteSize()),
    http2FrameSize: Type.Optional(ByteSize({ default: '16kb' })),
    http2MaxHeaderSize: Type.Optional(ByteSize({ default: '16Ki' })),
    http2KeepaliveInterval: Type.Optional(Duration()),
    http2KeepaliveTimeout: Type.Optional(Duration()),
    maxConnectionDuration: Type.Optional(Duration()),
    maxConcurrentRequests: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  rules({ ...onlyWith('http2KeepaliveTimeout', 'http2KeepaliveInterval'), fieldPath: '.http2KeepaliveTimeout' }),
);

const Attribute = Type.Object({ name: ShortString(), expression: CELExpression() });

export const Frontend = Type.Object({
  tcp: Type.Optional(
    Type.Object({ keepalive: Type.Optional(Keepalive), maxConnections: Type.Optional(Type.Integer({ minimum: 1 })) }),
  ),
  networkAuthorization: Type.Optional(Authorization),
  tls: Type.Optional(FrontendTLS),
  http: Type.Optional(FrontendHTTP),
  proxyProtocol: Type.Optional(
    Type.Object({
      version: Type.Optional(StringEnum(['V1', 'V2'] as const, { default: 'V2' })),
      mode: Type.Optional(StringEnum(['Strict', 'Optional'] as const, { default: 'Strict' })),
    }),
  ),
  connect: Type.Optional(Type.Object({ mode: StringEnum(['Deny', 'Route', 'Tunnel'] as const) })),
  accessLog: Type.Optional(
    Type.Object({
      preset: Type.Optional(StringEnum(['Otel'] as const)),
      filter: Type.Optional(CELExpression()),
      attributes: Type.Optional(
        Type.Object({
          remove: Type.Optional(Type.Array(TinyString(), { minItems: 1, maxItems: 32 })),
          add: Type.Optional(Type.Array(Attribute, { minItems: 1, maxItems: 64 })),
        }),
      ),
      otlp: Type.Optional(Type.Object(RemoteTarget, rules(remoteTargetRule))),
    }),
  ),
  tracing: Type.Optional(Type.Object(RemoteTarget, rules(remoteTargetRule))),
  metrics: Type.Optional(
    Type.Object({
      attributes: Type.Optional(
        Type.Object({ add: Type.Optional(Type.Array(Attribute, { minItems: 1, maxItems: 16 })) }),
      ),
    }),
  ),
});

export type Frontend = Static<typeof Frontend>;
export type FrontendHTTP = Static<typeof FrontendHTTP>;
