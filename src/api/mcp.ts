// MCP backend settings: authorization, the deprecated authentication form, and guardrail processors.
import { Type, CELExpression, PseudoHeaderName, StringEnum, MapOf, FailureMode, rules, oneOf } from './schema-kit.js';
import { RemoteTarget, remoteTargetRule } from './refs.js';
import { Authorization, MCPAuthentication } from './authn.js';

export const GUARDRAIL_PHASES = ['Off', 'Request', 'Response', 'Full'] as const;

const RemoteProcessor = Type.Object(
  {
    ...RemoteTarget,
    failureMode: Type.Optional(FailureMode({ default: 'FailClosed' })),
    metadata: Type.Optional(MapOf(CELExpression())),
    allowedRequestHeaders: Type.Optional(Type.Array(PseudoHeaderName(), { maxItems: 64 })),
    disallowedRequestHeaders: Type.Optional(Type.Array(PseudoHeaderName(), { maxItems: 64 })),
  },
  rules(remoteTargetRule),
);

export const McpGuardrails = Type.Object({
  processors: Type.Array(
    Type.Object(
      {
        remote: Type.Optional(RemoteProcessor),
        methods: MapOf(StringEnum(GUARDRAIL_PHASES), { minProperties: 1, maxProperties: 64 }),
      },
      rules(oneOf(['remote'])),
    ),
    { minItems: 1, maxItems: 16 },
  ),
});

export const BackendMCP = Type.Object({
  authorization: Type.Optional(Authorization),
  authentication: Type.Optional(MCPAuthentication),
  guardrails: Type.Optional(McpGuardrails),
});
