// GwParameters: how the data plane is provisioned (seed 001 "GwParameters").
import {
  doc,
  Type,
  ShortString,
  LongString,
  Duration,
  ObjectName,
  StringEnum,
  MapOf,
  JsonObject,
  rules,
  rule,
  atMostOne,
  oneOf,
  type Static,
} from './schema-kit.js';

/** Kubernetes resource.Quantity: int or string, as core types declare it. */
const Quantity = () =>
  Type.Unsafe<string | number>({
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern:
      '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  });

const Overlay = () =>
  Type.Object({
    metadata: Type.Optional(
      Type.Object({
        labels: Type.Optional(MapOf(Type.String({ maxLength: 63 }))),
        annotations: Type.Optional(MapOf(Type.String({ maxLength: 65536 }))),
      }),
    ),
    spec: Type.Optional(JsonObject()),
  });

const Logging = () =>
  Type.Object({
    // No schema defaults: the API server would fill them into a gateway's object and hide the class's
    // values; the deployer applies info / text after merging class and gateway (docs/deployer.md).
    level: Type.Optional(
      ShortString({ pattern: '^[A-Za-z0-9_:=,.-]+$', description: 'Default info (applied by the deployer).' }),
    ),
    format: Type.Optional(
      StringEnum(['json', 'text'] as const, { description: 'Default text (applied by the deployer).' }),
    ),
  });

const Shutdown = () => Type.Object({ minDelay: Type.Optional(Duration()), maxDelay: Type.Optional(Duration()) });

// The `gw proxy` flag syntax (src/cli/proxy-limits.ts): 0, or a whole number of ms, s, m or h.
const LimitDuration = () => Type.String({ maxLength: 32, pattern: '^(0|[0-9]+(ms|s|m|h))$' });
const PositiveLimitDuration = () => Type.String({ maxLength: 32, pattern: '^0*[1-9][0-9]*(ms|s|m|h)$' });
const LimitCount = () => Type.Integer({ minimum: 0, maximum: 1000000000 });

/**
 * What `rawConfig` may carry: the proxy settings its flags have (docs/deployer.md "rawConfig"). Each
 * `limits` field is the camelCase name of a `gw proxy` flag (`maxSessions` is `--max-sessions`).
 */
export const ProxyRawConfig = Type.Object({
  logging: Type.Optional(Logging()),
  shutdown: Type.Optional(Shutdown()),
  limits: Type.Optional(
    Type.Object({
      maxSessions: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000000000 })),
      maxSessionsPerClient: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000000000 })),
      sessionIdleTimeout: Type.Optional(PositiveLimitDuration()),
      sessionMaxAge: Type.Optional(LimitDuration()),
      headerTimeout: Type.Optional(PositiveLimitDuration()),
      requestTimeout: Type.Optional(LimitDuration()),
      keepaliveTimeout: Type.Optional(LimitDuration()),
      maxConnectionsPerSource: Type.Optional(LimitCount()),
      mcpInputTimeout: Type.Optional(PositiveLimitDuration()),
      targetQueue: Type.Optional(LimitCount()),
    }),
  ),
});

export const GwParametersSpec = Type.Object(
  {
    workload: Type.Optional(
      doc(
        Type.Object({
          kind: Type.Optional(StringEnum(['Deployment', 'DaemonSet'] as const, { default: 'Deployment' })),
        }),
        'Run the proxy as a Deployment (default) or a DaemonSet.',
      ),
    ),
    logging: Type.Optional(doc(Logging(), 'Proxy log level (RUST_LOG syntax) and format.')),
    rawConfig: Type.Optional(
      doc(
        ProxyRawConfig,
        'Proxy settings merged into the generated proxy config (logging, shutdown, limits); typed fields take precedence.',
      ),
    ),
    image: Type.Optional(
      Type.Object({
        registry: Type.Optional(ShortString()),
        repository: Type.Optional(ShortString()),
        tag: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' })),
        digest: Type.Optional(Type.String({ maxLength: 256, pattern: '^[a-z0-9]+:[a-f0-9]{32,}$' })),
        pullPolicy: Type.Optional(StringEnum(['Always', 'IfNotPresent', 'Never'] as const)),
      }),
    ),
    env: Type.Optional(
      doc(
        Type.Array(
          Type.Object(
            {
              name: ShortString({ pattern: '^[-._a-zA-Z][-._a-zA-Z0-9]*$' }),
              value: Type.Optional(Type.String({ maxLength: 32768 })),
              valueFrom: Type.Optional(JsonObject()),
            },
            rules(atMostOne(['value', 'valueFrom'])),
          ),
          { maxItems: 64 },
        ),
        'Environment variables of the proxy container; they override generated ones.',
      ),
    ),
    resources: Type.Optional(
      Type.Object({
        limits: Type.Optional(MapOf(Quantity(), { maxProperties: 16 })),
        requests: Type.Optional(MapOf(Quantity(), { maxProperties: 16 })),
      }),
    ),
    shutdown: Type.Optional(Shutdown()),
    istio: Type.Optional(
      Type.Object({
        enabled: Type.Optional(Type.Boolean()),
        caAddress: Type.Optional(LongString()),
        trustDomain: Type.Optional(ShortString()),
        additionalTrustDomains: Type.Optional(Type.Array(ShortString(), { maxItems: 16 })),
        clusterId: Type.Optional(ShortString()),
        network: Type.Optional(ShortString()),
      }),
    ),
    spiffe: Type.Optional(Type.Object({ socketPath: Type.Optional(LongString({ pattern: '^/' })) })),
    modelCatalog: Type.Optional(
      doc(
        Type.Object({
          sources: Type.Array(
            Type.Object(
              {
                configMap: Type.Optional(
                  Type.Object({ name: ObjectName(), key: Type.Optional(ShortString({ default: 'catalog.json' })) }),
                ),
              },
              rules(oneOf(['configMap'])),
            ),
            { minItems: 1, maxItems: 16 },
          ),
        }),
        'Model catalog sources; effective only on gateway-level parameters.',
      ),
    ),
    ui: Type.Optional(
      doc(
        Type.Object(
          {
            address: Type.Optional(
              doc(
                ShortString({ pattern: '^(\\[[0-9a-fA-F:.]+\\]|[^:\\[\\]]*):[0-9]{1,5}$' }),
                'host:port of the proxy web UI (default 127.0.0.1:15000, reachable by kubectl port-forward).',
              ),
            ),
            tokenSecret: Type.Optional(
              doc(
                Type.Object({ name: ObjectName(), key: Type.Optional(ShortString({ default: 'token' })) }),
                "Secret (gateway's namespace) holding the bearer token the UI's API asks for.",
              ),
            ),
          },
          rules(
            rule(
              "!has(self.address) || self.address.startsWith('127.') || self.address.startsWith('[::1]:') || self.address.startsWith('localhost:') || has(self.tokenSecret)",
              'an address off loopback needs tokenSecret',
              '.tokenSecret',
            ),
          ),
        ),
        'The web UI on the proxy (docs/ui.md); off loopback it needs tokenSecret.',
      ),
    ),
    deployment: Type.Optional(doc(Overlay(), 'Overlay merged into the generated Deployment (strategic merge).')),
    daemonSet: Type.Optional(Overlay()),
    service: Type.Optional(Overlay()),
    serviceAccount: Type.Optional(Overlay()),
    podDisruptionBudget: Type.Optional(Overlay()),
    horizontalPodAutoscaler: Type.Optional(
      doc(Overlay(), 'Creates a HorizontalPodAutoscaler for the Deployment when present.'),
    ),
  },
  rules(
    rule(
      "!has(self.horizontalPodAutoscaler) || !has(self.workload) || !has(self.workload.kind) || self.workload.kind == 'Deployment'",
      'horizontalPodAutoscaler may only be set when workload.kind is Deployment',
      '.horizontalPodAutoscaler',
    ),
  ),
);
export type GwParametersSpec = Static<typeof GwParametersSpec>;
