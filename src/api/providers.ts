// LLM providers: vendor settings, LLMProvider / NamedLLMProvider and priority groups (seed 001 "LLMProvider").
import {
  Type,
  ShortString,
  LongString,
  TinyString,
  SectionName,
  ObjectName,
  Port,
  StringEnum,
  rules,
  rule,
  oneOf,
  type Static,
} from './schema-kit.js';
import { Group } from './refs.js';
import { BackendWithAI } from './backend-policies.js';

const Model = () => Type.Optional(ShortString());
const CloudRegion = (def: string) =>
  Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9-]+$', default: def });
const ModerationMode = Type.Object({ mode: StringEnum(['Score', 'Block'] as const) });

export const OpenAISettings = Type.Object({
  model: Model(),
  moderation: Type.Optional(
    Type.Object({
      model: Type.Optional(ShortString({ default: 'omni-moderation-latest' })),
      policy: Type.Optional(
        Type.Object({ input: Type.Optional(ModerationMode), output: Type.Optional(ModerationMode) }),
      ),
    }),
  ),
});

export const AzureOpenAISettings = Type.Object(
  {
    model: Model(),
    endpoint: ShortString(),
    deploymentName: Type.Optional(ShortString()),
    apiVersion: Type.Optional(TinyString({ default: 'v1' })),
  },
  rules(
    rule(
      "!has(self.apiVersion) || self.apiVersion == 'v1' || has(self.deploymentName)",
      'deploymentName is required unless apiVersion is v1',
      '.deploymentName',
    ),
  ),
);

export const AzureSettings = Type.Object(
  {
    model: Model(),
    resourceName: ShortString(),
    resourceType: StringEnum(['OpenAI', 'Foundry'] as const),
    apiVersion: Type.Optional(TinyString({ default: 'v1' })),
    projectName: Type.Optional(ShortString()),
  },
  rules(
    rule(
      "self.resourceType != 'Foundry' || has(self.projectName)",
      'projectName is required when resourceType is Foundry',
      '.projectName',
    ),
  ),
);

export const VertexAISettings = Type.Object({
  model: Model(),
  projectId: ShortString(),
  region: Type.Optional(CloudRegion('us-central1')),
});

export const BedrockSettings = Type.Object({
  model: Model(),
  region: Type.Optional(CloudRegion('us-east-1')),
  guardrail: Type.Optional(Type.Object({ identifier: ShortString(), version: ShortString() })),
});

export const PROVIDER_FORMATS = ['Completions', 'Messages', 'Responses', 'Embeddings'] as const;
export const ProviderFormats = () =>
  Type.Array(
    Type.Object({ format: StringEnum(PROVIDER_FORMATS), path: Type.Optional(LongString({ pattern: '^/' })) }),
    {
      minItems: 1,
      maxItems: 6,
      ...rules(rule('self.all(f, self.exists_one(g, g.format == f.format))', 'each format may be listed only once')),
    },
  );

/** A Service or an InferencePool in the referring object's namespace. */
export const ProviderBackendRef = Type.Object(
  {
    group: Type.Optional(Group()),
    kind: Type.Optional(StringEnum(['Service', 'InferencePool'] as const, { default: 'Service' })),
    name: ObjectName(),
    port: Type.Optional(Port()),
  },
  rules(
    rule(
      "(has(self.kind) && self.kind != 'Service') || has(self.port)",
      'port is required when the reference is to a Service',
      '.port',
    ),
  ),
);

export const CustomProviderSettings = Type.Object({
  backendRef: Type.Optional(ProviderBackendRef),
  providerOverride: Type.Optional(ShortString({ default: 'custom' })),
  formats: ProviderFormats(),
  model: Model(),
});

/** The vendor settings of an LLMProvider, exactly one of which is set. */
export const PROVIDER_VENDORS = [
  'openai',
  'azureopenai',
  'azure',
  'anthropic',
  'gemini',
  'vertexai',
  'bedrock',
  'custom',
] as const;
const providerFields = {
  openai: Type.Optional(OpenAISettings),
  azureopenai: Type.Optional(AzureOpenAISettings),
  azure: Type.Optional(AzureSettings),
  anthropic: Type.Optional(Type.Object({ model: Model() })),
  gemini: Type.Optional(Type.Object({ model: Model() })),
  vertexai: Type.Optional(VertexAISettings),
  bedrock: Type.Optional(BedrockSettings),
  custom: Type.Optional(CustomProviderSettings),
  host: Type.Optional(ShortString()),
  port: Type.Optional(Port()),
  path: Type.Optional(LongString({ pattern: '^/' })),
  pathPrefix: Type.Optional(LongString({ pattern: '^/' })),
};
const providerRules = [
  oneOf(PROVIDER_VENDORS),
  rule(
    '!has(self.pathPrefix) || has(self.openai) || has(self.anthropic)',
    'pathPrefix is supported only for the openai and anthropic providers',
    '.pathPrefix',
  ),
  rule(
    '!has(self.custom) || has(self.custom.backendRef) || (has(self.host) && has(self.port))',
    'host and port are required when custom has no backendRef',
  ),
];

export const LLMProvider = Type.Object(providerFields, rules(...providerRules));
export const NamedLLMProvider = Type.Object(
  { name: SectionName(), ...providerFields, policies: Type.Optional(BackendWithAI) },
  rules(...providerRules),
);

export const PriorityGroup = Type.Object({ providers: Type.Array(NamedLLMProvider, { minItems: 1, maxItems: 16 }) });

export const BackendAISpec = Type.Object(
  {
    provider: Type.Optional(LLMProvider),
    groups: Type.Optional(Type.Array(PriorityGroup, { minItems: 1, maxItems: 8 })),
  },
  rules(
    oneOf(['provider', 'groups']),
    rule(
      '!has(self.groups) || self.groups.all(g, g.providers.all(p, g.providers.exists_one(q, q.name == p.name) && self.groups.exists_one(h, h.providers.exists(q, q.name == p.name))))',
      'provider names must be unique across all groups',
      '.groups',
    ),
  ),
);

export type LLMProvider = Static<typeof LLMProvider>;
export type NamedLLMProvider = Static<typeof NamedLLMProvider>;
export type BackendAISpec = Static<typeof BackendAISpec>;
