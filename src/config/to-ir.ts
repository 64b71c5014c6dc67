// Pure translation of a validated config file into IR resources: one bind, one listener, one route
// carrying the effective policy, and one MCP backend.
import { configRefusals } from './refusals.js';
import type { ConfigFile, TargetConfig } from './schema.js';
import type { SnapshotInput, McpTargetInput, PolicyInput, McpIdp } from '../ir/types.js';

const prefixModes = { Conditional: 'CONDITIONAL', Always: 'ALWAYS', Never: 'NEVER' } as const;
const failureModes = { FailClosed: 'FAIL_CLOSED', FailOpen: 'FAIL_OPEN' } as const;
const authModes = { strict: 'STRICT', optional: 'OPTIONAL', permissive: 'PERMISSIVE' } as const;

export const defaultMcpPath = '/mcp';

export function configToIr(config: ConfigFile, source: string): SnapshotInput {
  const { mcp } = config;
  const bind = `bind/${mcp.port}`;
  const listener = 'listener/mcp';
  const backend = 'backend/mcp';
  const origin = `file ${source}`;
  const policy = policyToIr(config);
  const provenance = Object.fromEntries(Object.keys(mcp.policies ?? {}).map((k) => [snake(k), origin]));
  const refusals = configRefusals(config, source);
  return {
    version: '',
    resources: [
      { bind: { name: bind, port: mcp.port, address: mcp.host ?? '' } },
      { listener: { name: listener, bind, hostnames: [], protocol: 'HTTP' } },
      {
        route: {
          name: 'route/mcp',
          listeners: [listener],
          routeMatches: [{ path: { exact: mcp.path ?? defaultMcpPath } }],
          backends: [{ backend, weight: 1 }],
          policy,
          provenance,
          ...(refusals.length ? { refusals } : {}),
        },
      },
      {
        backend: {
          name: backend,
          mcp: {
            targets: mcp.targets.map(targetToIr),
            prefixMode: prefixModes[mcp.prefixMode ?? 'Conditional'],
            failureMode: failureModes[mcp.failureMode ?? 'FailClosed'],
            sessionRouting: 'STATEFUL',
          },
        },
      },
    ],
  };
}

function targetToIr(t: TargetConfig): McpTargetInput {
  if (t.stdio) return { name: t.name, stdio: { cmd: t.stdio.cmd, args: t.stdio.args ?? [], env: t.stdio.env ?? {} } };
  if (t.sse) return { name: t.name, remote: { url: t.sse.url, protocol: 'SSE' } };
  return { name: t.name, remote: { url: t.streamableHttp?.url ?? '', protocol: 'STREAMABLE_HTTP' } };
}

function policyToIr(config: ConfigFile): PolicyInput {
  const p = config.mcp.policies ?? {};
  const out: PolicyInput = { maxRequestBytes: config.mcp.maxRequestBytes ?? 0 };
  if (p.cors) {
    out.cors = {
      allowOrigins: p.cors.allowOrigins ?? [],
      allowHeaders: p.cors.allowHeaders ?? [],
      exposeHeaders: p.cors.exposeHeaders ?? [],
      allowMethods: p.cors.allowMethods ?? [],
      maxAge: p.cors.maxAge ?? 0,
      allowCredentials: p.cors.allowCredentials ?? false,
    };
  }
  const a = p.mcpAuthentication;
  if (a) {
    const { resource, scopesSupported, bearerMethodsSupported, ...extra } = a.resourceMetadata ?? {};
    out.mcpAuthentication = {
      mode: authModes[(a.mode ?? 'strict').toLowerCase() as keyof typeof authModes],
      issuer: a.issuer,
      audiences: a.audiences ?? [],
      provider: a.provider ? ((Object.keys(a.provider)[0] ?? '').toUpperCase() as McpIdp) : 'MCP_IDP_UNSPECIFIED',
      clientId: a.clientId ?? '',
      clientSecret: a.clientSecret ?? '',
      resourceMetadata: a.resourceMetadata
        ? {
            resource: resource ?? '',
            scopesSupported: scopesSupported ?? [],
            bearerMethodsSupported: bearerMethodsSupported ?? [],
            extraJson: Object.keys(extra).length > 0 ? JSON.stringify(extra) : '',
          }
        : null,
      jwksUrl: a.jwks ?? '',
      jwksInline: '',
    };
  }
  if (p.authorization) {
    out.authorization = { rules: p.authorization.rules.map((expr) => ({ expressions: [expr], action: 'ALLOW' })) };
  }
  return out;
}

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
