// The standalone config file (`gw proxy -f config.yaml`): one TypeBox source for the loader's
// validation, the TypeScript types and the published schema/config.json.
import { Type, type Static } from '@sinclair/typebox';

const Str = (description: string, extra: object = {}) => Type.String({ minLength: 1, description, ...extra });
const StrList = (description: string) => Type.Array(Type.String({ minLength: 1 }), { description });

export const StdioTransport = Type.Object(
  {
    cmd: Str('Executable to start, looked up on PATH.'),
    args: Type.Optional(Type.Array(Type.String(), { description: 'Arguments passed to cmd.' })),
    env: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String(), {
        description: 'Extra environment variables for the process (added to PATH, HOME and the like).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'A local MCP server spoken to over stdin/stdout, one process per client session.',
  },
);

const urlTransport = (description: string) =>
  Type.Object(
    {
      url: Str('Full URL of the MCP endpoint.', { pattern: '^https?://' }),
    },
    { additionalProperties: false, description },
  );

export const Target = Type.Object(
  {
    name: Str('Unique target name; the prefix of its tools and prompts when names are prefixed.', {
      maxLength: 64,
      pattern: '^[A-Za-z0-9][A-Za-z0-9-]*$',
    }),
    stdio: Type.Optional(StdioTransport),
    streamableHttp: Type.Optional(urlTransport('A remote MCP server over streamable HTTP.')),
    sse: Type.Optional(urlTransport('A remote MCP server over the legacy HTTP+SSE transport.')),
  },
  {
    additionalProperties: false,
    oneOf: [{ required: ['stdio'] }, { required: ['streamableHttp'] }, { required: ['sse'] }],
  },
);

export const Cors = Type.Object(
  {
    allowOrigins: Type.Optional(StrList('Allowed origins; `*` allows any.')),
    allowHeaders: Type.Optional(StrList('Allowed request headers; `*` allows any.')),
    exposeHeaders: Type.Optional(StrList('Response headers browsers may read; include Mcp-Session-Id.')),
    allowMethods: Type.Optional(StrList('Allowed methods; default GET, POST, DELETE, OPTIONS.')),
    maxAge: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 86400, description: 'Seconds a preflight may be cached.' }),
    ),
    allowCredentials: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const empty = Type.Object({}, { additionalProperties: false });
export const Provider = Type.Object(
  {
    idpa: Type.Optional(empty),
    idpb: Type.Optional(empty),
    idpc: Type.Optional(empty),
    idpd: Type.Optional(empty),
    idpe: Type.Optional(empty),
    idpf: Type.Optional(empty),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    description: 'Exactly one provider key with `{}`.',
  },
);

export const ResourceMetadata = Type.Object(
  {
    resource: Type.Optional(Str('URL of the MCP endpoint as clients reach it.')),
    scopesSupported: Type.Optional(StrList('Scopes advertised to clients.')),
    bearerMethodsSupported: Type.Optional(StrList('Token presentation methods (`header`).')),
  },
  { additionalProperties: true, description: 'Protected-resource metadata; further members are served as given.' },
);

export const McpAuthentication = Type.Object(
  {
    mode: Type.Optional(
      Type.Union(
        ['strict', 'optional', 'permissive', 'Strict', 'Optional', 'Permissive'].map((m) => Type.Literal(m)),
        {
          description:
            'strict (default): a valid token is required; optional: validated when present; permissive: never rejects.',
        },
      ),
    ),
    issuer: Str('Issuer of accepted tokens (the `iss` claim).'),
    audiences: Type.Optional(StrList('Accepted `aud` values; unset accepts any.')),
    provider: Type.Optional(Provider),
    clientId: Type.Optional(Str('Pre-registered client ID returned for dynamic client registration.')),
    clientSecret: Type.Optional(Str('Secret of the gateway registration at the provider (confidential clients).')),
    resourceMetadata: Type.Optional(ResourceMetadata),
    jwks: Type.Optional(Str('Signing-key URL; derived from the provider and issuer when unset.')),
  },
  { additionalProperties: false },
);

export const Authorization = Type.Object(
  {
    rules: Type.Array(Type.String({ minLength: 1, maxLength: 16384 }), {
      description: 'CEL expressions over the request and `jwt`; a request passes when any rule holds.',
    }),
  },
  { additionalProperties: false },
);

export const Policies = Type.Object(
  {
    cors: Type.Optional(Cors),
    mcpAuthentication: Type.Optional(McpAuthentication),
    authorization: Type.Optional(Authorization),
  },
  { additionalProperties: false },
);

export const Mcp = Type.Object(
  {
    port: Type.Integer({ minimum: 1, maximum: 65535, description: 'Port of the MCP listener.' }),
    host: Type.Optional(Str('Address to bind; default all interfaces.')),
    path: Type.Optional(Str('Path of the MCP endpoint; default /mcp.', { pattern: '^/' })),
    prefixMode: Type.Optional(
      Type.Union([Type.Literal('Conditional'), Type.Literal('Always'), Type.Literal('Never')], {
        description:
          'Prefix tool and prompt names with the target name: only with several targets (default), always, or never.',
      }),
    ),
    failureMode: Type.Optional(
      Type.Union([Type.Literal('FailClosed'), Type.Literal('FailOpen')], {
        description: 'FailClosed (default): a target failing at initialize fails the session; FailOpen skips it.',
      }),
    ),
    maxRequestBytes: Type.Optional(
      Type.Integer({ minimum: 1024, maximum: 1073741824, description: 'Largest request body; default 2 MiB.' }),
    ),
    policies: Type.Optional(Policies),
    targets: Type.Array(Target, { minItems: 1, maxItems: 128 }),
  },
  { additionalProperties: false },
);

export const ConfigFile = Type.Object(
  {
    mcp: Mcp,
  },
  { additionalProperties: false, $id: 'https://gw.dev/schema/config.json', title: 'Gw standalone proxy configuration' },
);

export type ConfigFile = Static<typeof ConfigFile>;
export type TargetConfig = Static<typeof Target>;
