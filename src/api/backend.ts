// GwBackend: where traffic goes (seed 001 "GwBackend").
import { Type, ShortString, LongString, SectionName, Port, StringEnum, rules, rule, oneOf, type Static } from './schema-kit.js';
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
  rules(oneOf(['host', 'backendRef']), rule('!has(self.policies) || has(self.host)', 'policies may only be set on host-based targets', '.policies')),
);

export const McpTargetSelector = Type.Object(
  {
    name: SectionName(),
    selector: Type.Optional(Type.Object({ namespaces: Type.Optional(LabelSelector), services: Type.Optional(LabelSelector) })),
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

export const GwBackendSpec = Type.Object(
  {
    ai: Type.Optional(BackendAISpec),
    static: Type.Optional(Type.Object({ host: ShortString(), port: Port() })),
    dynamicForwardProxy: Type.Optional(Type.Object({})),
    mcp: Type.Optional(McpBackend),
    aws: Type.Optional(
      Type.Object(
        { agentCore: Type.Optional(Type.Object({ agentRuntimeArn: LongString({ pattern: '^arn:' }), qualifier: Type.Optional(ShortString()) })) },
        rules(oneOf(['agentCore'])),
      ),
    ),
    a2a: Type.Optional(Type.Object({ host: ShortString(), port: Port() })),
    policies: Type.Optional(BackendFull),
  },
  rules(oneOf(['ai', 'static', 'dynamicForwardProxy', 'mcp', 'aws', 'a2a'])),
);
export type GwBackendSpec = Static<typeof GwBackendSpec>;
export type McpTarget = Static<typeof McpTarget>;
export type McpTargetSelector = Static<typeof McpTargetSelector>;
