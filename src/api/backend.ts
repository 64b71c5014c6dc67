// GwBackend: where traffic goes (seed 001 "GwBackend").
import {
  doc,
  Type,
  ShortString,
  LongString,
  TinyString,
  SectionName,
  Port,
  StringEnum,
  rules,
  rule,
  oneOf,
  type Static,
} from './schema-kit.js';
import { LabelSelector, LocalServiceRef } from './refs.js';
import { BackendSimple, BackendFull } from './backend-policies.js';
import { BackendAISpec } from './providers.js';

export const McpTarget = Type.Object(
  {
    host: Type.Optional(ShortString()),
    backendRef: Type.Optional(LocalServiceRef),
    port: Port(),
    path: Type.Optional(LongString({ pattern: '^/' })),
    protocol: Type.Optional(StringEnum(['StreamableHTTP', 'SSE'] as const)),
    policies: Type.Optional(BackendSimple),
  },
  rules(
    oneOf(['host', 'backendRef']),
    rule('!has(self.policies) || has(self.host)', 'policies may only be set on host-based targets', '.policies'),
  ),
);

export const McpTargetSelector = Type.Object(
  {
    name: SectionName(),
    selector: Type.Optional(
      Type.Object({ namespaces: Type.Optional(LabelSelector), services: Type.Optional(LabelSelector) }),
    ),
    static: Type.Optional(McpTarget),
  },
  rules(oneOf(['selector', 'static'])),
);

export const McpBackend = Type.Object({
  targets: Type.Array(McpTargetSelector, {
    minItems: 1,
    maxItems: 128,
    ...rules(rule('self.all(t, self.exists_one(u, u.name == t.name))', 'target names must be unique')),
  }),
  sessionRouting: Type.Optional(StringEnum(['Stateful', 'Stateless'] as const, { default: 'Stateful' })),
  failureMode: Type.Optional(StringEnum(['FailClosed', 'FailOpen'] as const, { default: 'FailClosed' })),
  prefixMode: Type.Optional(StringEnum(['Conditional', 'Always', 'Never'] as const, { default: 'Conditional' })),
});

/** An IPv4 or IPv6 address range in CIDR notation; the proxy parses the address itself. */
const CIDR =
  '^([0-9]{1,3}(\\.[0-9]{1,3}){3}/([0-9]|[12][0-9]|3[0-2])|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*/([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8]))$';

/** The backend types of GwBackend.spec, exactly one of which is set. */
export const BACKEND_TYPES = ['ai', 'static', 'dynamicForwardProxy', 'mcp', 'aws', 'a2a'] as const;

export const GwBackendSpec = Type.Object(
  {
    ai: Type.Optional(
      doc(BackendAISpec, 'LLM provider(s): one provider, or priority groups of named providers tried in order.'),
    ),
    static: Type.Optional(doc(Type.Object({ host: ShortString(), port: Port() }), 'A fixed host and port.')),
    dynamicForwardProxy: Type.Optional(
      doc(
        Type.Object({
          allowedDestinations: Type.Optional(
            doc(
              Type.Array(TinyString({ pattern: CIDR }), { maxItems: 64 }),
              "Address ranges (CIDR, e.g. 10.1.0.0/16 or fd00::/8) that may be reached although they are loopback, link-local, private, unspecified or this pod's own; refused by default.",
            ),
          ),
        }),
        'Send each request to the host named by its Host header (TLS SNI for TLS); restrict access with policies.',
      ),
    ),
    mcp: Type.Optional(doc(McpBackend, 'MCP servers federated behind one endpoint.')),
    aws: Type.Optional(
      doc(
        Type.Object(
          {
            agentCore: Type.Optional(
              Type.Object({
                agentRuntimeArn: LongString({ pattern: '^arn:' }),
                qualifier: Type.Optional(ShortString()),
              }),
            ),
          },
          rules(oneOf(['agentCore'])),
        ),
        'A cloud agent runtime.',
      ),
    ),
    a2a: Type.Optional(doc(Type.Object({ host: ShortString(), port: Port() }), 'An agent-to-agent (A2A) endpoint.')),
    policies: Type.Optional(
      doc(BackendFull, 'Backend settings; they take precedence over GwPolicy backend settings for the same field.'),
    ),
  },
  rules(oneOf(BACKEND_TYPES)),
);
export type GwBackendSpec = Static<typeof GwBackendSpec>;
export type McpTarget = Static<typeof McpTarget>;
export type McpTargetSelector = Static<typeof McpTargetSelector>;
