// AI backend settings: prompt enrichment, prompt guards, field defaults/overrides/transformations (seed 001
// "BackendAI" and "Prompt guards").
import {
  Type,
  ShortString,
  TinyString,
  LongString,
  CELExpression,
  StringEnum,
  MapOf,
  Json,
  rules,
  rule,
  oneOf,
} from './schema-kit.js';
import { BackendRef, SecretKeyRef } from './refs.js';
import { AwsAuth, GcpAuth } from './backend-auth.js';
import { AuthorizationLocation } from './authn.js';

export const CustomResponse = Type.Object({
  message: Type.Optional(LongString({ default: 'The request was rejected by a prompt guard.' })),
  statusCode: Type.Optional(Type.Integer({ minimum: 200, maximum: 599, default: 403 })),
});

export const RejectAuditAction = () => StringEnum(['Reject', 'Audit'] as const, { default: 'Reject' });
export const BUILTIN_PATTERNS = ['Ssn', 'CreditCard', 'PhoneNumber', 'Email', 'CaSin'] as const;
export const CONTENT_SCOPES = ['SystemPrompt', 'Messages', 'ToolOutput', 'ToolInput'] as const;

const RegexGuard = Type.Object(
  {
    action: Type.Optional(StringEnum(['Mask', 'Reject', 'Audit'] as const, { default: 'Reject' })),
    matches: Type.Optional(
      Type.Array(Type.Object({ pattern: LongString(), name: Type.Optional(TinyString()) }), {
        minItems: 1,
        maxItems: 64,
      }),
    ),
    builtins: Type.Optional(Type.Array(StringEnum(BUILTIN_PATTERNS), { minItems: 1, maxItems: 5 })),
    scopes: Type.Optional(Type.Array(StringEnum(CONTENT_SCOPES), { minItems: 1, maxItems: 4 })),
  },
  rules(rule('has(self.matches) || has(self.builtins)', 'at least one of matches or builtins must be set')),
);

/** Seed 000: a webhook called with the prompt/response; `headers` values are CEL over the client request. */
const WebhookGuard = Type.Object({ backendRef: BackendRef, headers: Type.Optional(MapOf(CELExpression())) });

const KeyOrSecret = Type.Object(
  {
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    secretRef: Type.Optional(SecretKeyRef('Authorization')),
  },
  rules(oneOf(['key', 'secretRef'])),
);

const ModerationGuard = Type.Object({
  model: Type.Optional(ShortString({ default: 'omni-moderation-latest' })),
  action: Type.Optional(RejectAuditAction()),
  policies: Type.Optional(Type.Object({ auth: Type.Optional(KeyOrSecret) })),
});

const BedrockGuard = Type.Object({
  identifier: ShortString(),
  version: ShortString(),
  region: ShortString(),
  action: Type.Optional(RejectAuditAction()),
  policies: Type.Optional(
    Type.Object({
      auth: Type.Optional(
        Type.Object(
          {
            aws: Type.Optional(AwsAuth),
            key: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
            secretRef: Type.Optional(SecretKeyRef('Authorization')),
            location: Type.Optional(AuthorizationLocation),
          },
          rules(oneOf(['aws', 'key', 'secretRef'])),
        ),
      ),
    }),
  ),
});

const ModelArmorGuard = Type.Object({
  templateId: ShortString(),
  projectId: ShortString(),
  location: Type.Optional(
    Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9-]+$', default: 'us-central1' }),
  ),
  action: Type.Optional(RejectAuditAction()),
  policies: Type.Optional(
    Type.Object({
      auth: Type.Optional(
        Type.Object(
          {
            gcp: Type.Optional(GcpAuth),
            key: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
            secretRef: Type.Optional(SecretKeyRef('Authorization')),
          },
          rules(oneOf(['gcp', 'key', 'secretRef'])),
        ),
      ),
    }),
  ),
});

const RESPONSE_GUARDS = ['regex', 'webhook', 'bedrockGuardrails', 'googleModelArmor'];
const responseGuardFields = {
  regex: Type.Optional(RegexGuard),
  webhook: Type.Optional(WebhookGuard),
  bedrockGuardrails: Type.Optional(BedrockGuard),
  googleModelArmor: Type.Optional(ModelArmorGuard),
  customResponse: Type.Optional(CustomResponse),
};
const RequestGuard = Type.Object(
  { ...responseGuardFields, openAIModeration: Type.Optional(ModerationGuard) },
  rules(oneOf(['regex', 'webhook', 'openAIModeration', 'bedrockGuardrails', 'googleModelArmor'])),
);
const ResponseGuard = Type.Object(responseGuardFields, rules(oneOf(RESPONSE_GUARDS)));

export const AIPromptGuard = Type.Object({
  streaming: Type.Optional(StringEnum(['Disabled', 'Buffered'] as const, { default: 'Disabled' })),
  request: Type.Optional(Type.Array(RequestGuard, { minItems: 1, maxItems: 8 })),
  response: Type.Optional(Type.Array(ResponseGuard, { minItems: 1, maxItems: 8 })),
});

export const FieldTransformations = () =>
  Type.Array(Type.Object({ field: ShortString(), expression: CELExpression() }), { minItems: 1, maxItems: 64 });
const FieldDefaults = () =>
  Type.Array(Type.Object({ field: ShortString(), value: Json() }), { minItems: 1, maxItems: 64 });
const PromptMessages = () =>
  Type.Array(Type.Object({ role: TinyString(), content: Type.String({ minLength: 1, maxLength: 32768 }) }), {
    minItems: 1,
    maxItems: 64,
  });

export const ROUTE_TYPES = [
  'Completions',
  'Messages',
  'Responses',
  'Embeddings',
  'Models',
  'Realtime',
  'Passthrough',
] as const;

export const BackendAI = Type.Object({
  prompt: Type.Optional(
    Type.Object({ prepend: Type.Optional(PromptMessages()), append: Type.Optional(PromptMessages()) }),
  ),
  promptGuard: Type.Optional(AIPromptGuard),
  defaults: Type.Optional(FieldDefaults()),
  overrides: Type.Optional(FieldDefaults()),
  transformations: Type.Optional(FieldTransformations()),
  finalTransformations: Type.Optional(FieldTransformations()),
  modelAliases: Type.Optional(MapOf(ShortString())),
  promptCaching: Type.Optional(
    Type.Object({
      system: Type.Optional(Type.Boolean({ default: true })),
      messages: Type.Optional(Type.Boolean({ default: true })),
      tools: Type.Optional(Type.Boolean({ default: false })),
    }),
  ),
  routes: Type.Optional(MapOf(StringEnum(ROUTE_TYPES))),
});
