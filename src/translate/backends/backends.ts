// GwBackend and Service → IR Backend. Every GwBackend kind of seed 001 maps onto one IR backend.
import type { BackendFull, GwBackendSpec } from '../../api/index.js';
import { lookup, read, type Ctx } from '../objects/context.js';
import type { McpTargetSpec, Provider } from '../objects/gw-types.js';
import type {
  AiProviderInput,
  BackendInput,
  FailureModeInput,
  McpTargetInput,
  PrefixModeInput,
  SessionRoutingInput,
} from '../../ir/types.js';
import type { Named } from '../built-ir.js';
import { serviceSpec } from '../objects/gateway-api.js';
import { selectorMatches, stableStringify } from '../objects/read.js';
import { aiCredential, aiProviderSettings } from './backend-ai.js';

const PROVIDER_KINDS = [
  'openai',
  'azureopenai',
  'azure',
  'anthropic',
  'gemini',
  'vertexai',
  'bedrock',
  'custom',
] as const;
// Schema enum value → IR enum name; an absent value is the schema default.
const PREFIX_MODES: Record<string, PrefixModeInput> = { Conditional: 'CONDITIONAL', Always: 'ALWAYS', Never: 'NEVER' };
const FAILURE_MODES: Record<string, FailureModeInput> = { FailClosed: 'FAIL_CLOSED', FailOpen: 'FAIL_OPEN' };
const SESSION_ROUTINGS: Record<string, SessionRoutingInput> = { Stateful: 'STATEFUL', Stateless: 'STATELESS' };

export interface BackendResult {
  backend: BackendInput;
  /** Problems with references inside the backend (status ResolvedRefs=False), one sentence each. */
  refProblems: string[];
  /** Own policies of MCP targets and AI providers, by target / provider name. */
  targetPolicies: Record<string, BackendFull>;
  /** MCP target names, in IR order. */
  targets: string[];
  /** AI provider names of every group, in IR order. */
  providers: string[];
}

export function serviceHost(name: string, namespace: string): string {
  return `${name}.${namespace}.svc.cluster.local`;
}

export function serviceBackendName(namespace: string, name: string, port: number): string {
  return `Service/${namespace}/${name}:${port}`;
}

export function gwBackendName(key: string): string {
  return `GwBackend/${key}`;
}

/** `endpoints`: the Service's ready `ip:port` from its EndpointSlices (objects/endpoint-slices.ts), empty when none are known. */
export function translateService(
  namespace: string,
  name: string,
  port: number,
  endpoints: string[] = [],
): BackendInput {
  return {
    name: serviceBackendName(namespace, name, port),
    kind: 'static',
    static: { host: serviceHost(name, namespace), port, ...(endpoints.length > 0 ? { endpoints } : {}) },
  };
}

export function translateGwBackend(ctx: Ctx, key: string, spec: GwBackendSpec): BackendResult {
  const ns = key.slice(0, key.indexOf('/'));
  const out: BackendResult = {
    backend: { name: gwBackendName(key) },
    refProblems: [],
    targetPolicies: {},
    targets: [],
    providers: [],
  };
  const { mcp, ai, a2a, static: st, aws } = spec;
  if (mcp) {
    const targets: Named<McpTargetInput>[] = [];
    mcp.targets.forEach((t, i) => {
      const stat = t.static;
      if (stat) {
        const target = staticTarget(ctx, ns, t.name, stat, `spec.mcp.targets[${i}].static`, out.refProblems);
        if (target) targets.push(target);
        if (stat.policies) out.targetPolicies[t.name] = stat.policies;
        return;
      }
      targets.push(...selectorTargets(ctx, ns, t.name, t.selector ?? {}));
    });
    out.targets = targets.map((t) => t.name);
    out.backend.kind = 'mcp';
    out.backend.mcp = {
      targets,
      prefixMode: PREFIX_MODES[mcp.prefixMode ?? 'Conditional'] ?? 'CONDITIONAL',
      failureMode: FAILURE_MODES[mcp.failureMode ?? 'FailClosed'] ?? 'FAIL_CLOSED',
      sessionRouting: SESSION_ROUTINGS[mcp.sessionRouting ?? 'Stateful'] ?? 'STATEFUL',
    };
  } else if (ai) {
    const provider: Provider | undefined = ai.provider;
    const own = (name: string, p: Provider) => {
      if (p.policies) out.targetPolicies[name] = p.policies;
    };
    if (provider) own(key.slice(ns.length + 1), provider);
    (ai.groups ?? []).forEach((g) => g.providers.forEach((p) => own(p.name, p)));
    const groups = provider
      ? [{ providers: [aiProvider(ctx, ns, key.slice(ns.length + 1), provider, 'spec.ai.provider', out.refProblems)] }]
      : (ai.groups ?? []).map((g, gi) => ({
          providers: g.providers.map((p, pi) =>
            aiProvider(ctx, ns, p.name, p, `spec.ai.groups[${gi}].providers[${pi}]`, out.refProblems),
          ),
        }));
    out.providers = groups.flatMap((g) => g.providers.map((p) => p.name));
    out.backend.kind = 'ai';
    out.backend.ai = { groups };
  } else if (a2a) {
    out.backend.kind = 'a2a';
    out.backend.a2a = { host: a2a.host, port: a2a.port };
  } else if (st) {
    out.backend.kind = 'static';
    out.backend.static = { host: st.host, port: st.port };
  } else if (aws) {
    out.backend.kind = 'aws';
    out.backend.aws = {
      agentRuntimeArn: aws.agentCore?.agentRuntimeArn ?? '',
      qualifier: aws.agentCore?.qualifier ?? '',
    };
  } else {
    out.backend.kind = 'dynamicForwardProxy';
    out.backend.dynamicForwardProxy = { allowedDestinations: spec.dynamicForwardProxy?.allowedDestinations ?? [] };
  }
  return out;
}

function staticTarget(
  ctx: Ctx,
  ns: string,
  name: string,
  s: NonNullable<McpTargetSpec['static']>,
  path: string,
  problems: string[],
): Named<McpTargetInput> | undefined {
  const protocol = s.protocol === 'SSE' ? 'SSE' : 'STREAMABLE_HTTP';
  const urlPath = s.path ?? (protocol === 'SSE' ? '/sse' : '/mcp');
  const port = s.port;
  let host = s.host;
  const ref = s.backendRef;
  if (ref) {
    const svc = ref.name;
    if (!read(ctx, 'Service', `${ns}/${svc}`)) {
      problems.push(`${path}.backendRef: Service ${ns}/${svc} does not exist`);
      return undefined;
    }
    host = serviceHost(svc, ns);
  }
  return { name, transport: 'remote', remote: { url: `http://${host ?? ''}:${port}${urlPath}`, protocol } };
}

/** Services chosen by label, in namespaces chosen by label (default: the backend's own namespace). */
function selectorTargets(
  ctx: Ctx,
  ns: string,
  name: string,
  sel: NonNullable<McpTargetSpec['selector']>,
): Named<McpTargetInput>[] {
  const nsSel = sel.namespaces;
  const namespaces = nsSel
    ? lookup(ctx, 'byNamespace', 'Namespace/').filter((n) =>
        selectorMatches(nsSel, read(ctx, 'Namespace', n)?.obj.metadata.labels),
      )
    : [ns];
  const out: Named<McpTargetInput>[] = [];
  for (const n of namespaces) {
    for (const sk of lookup(ctx, 'byNamespace', `Service/${n}`)) {
      const svc = read(ctx, 'Service', sk);
      if (!svc || !selectorMatches(sel.services, svc.obj.metadata.labels)) continue;
      const ports = serviceSpec(svc).ports ?? [];
      const mcpPort = ports.find((p) => /mcp/i.test(p.appProtocol ?? '')) ?? ports[0];
      if (!mcpPort) continue;
      const sse = /sse/i.test(mcpPort.appProtocol ?? '');
      const svcName = svc.obj.metadata.name;
      out.push({
        name: n === ns ? `${name}-${svcName}` : `${name}-${n}-${svcName}`,
        transport: 'remote',
        remote: {
          url: `http://${serviceHost(svcName, n)}:${mcpPort.port ?? 0}${sse ? '/sse' : '/mcp'}`,
          protocol: sse ? 'SSE' : 'STREAMABLE_HTTP',
        },
      });
    }
  }
  return out;
}

function aiProvider(
  ctx: Ctx,
  ns: string,
  name: string,
  p: Provider,
  path: string,
  problems: string[],
): Named<AiProviderInput> {
  const kind = PROVIDER_KINDS.find((k) => p[k] !== undefined) ?? 'custom';
  const settings = p[kind] ?? {};
  const ref = kind === 'custom' ? p.custom?.backendRef : undefined;
  let host = p.host ?? '';
  let port = p.port ?? 0;
  if (ref?.kind === 'InferencePool')
    // Pools are resolved for GwModels (src/translate/models/model-backend.ts), not yet for GwBackend providers.
    problems.push(
      `${path}.custom.backendRef: an InferencePool is applied on a GwModel's custom.backendRef only; here name a Service`,
    );
  else if (ref) {
    const svc = ref.name;
    if (!read(ctx, 'Service', `${ns}/${svc}`))
      problems.push(`${path}.custom.backendRef: Service ${ns}/${svc} does not exist`);
    host = serviceHost(svc, ns);
    port = ref.port ?? port;
  }
  // The provider's own credential: a Secret or key that is missing leaves every route's edge out.
  const auth = p.policies?.auth;
  const credential = auth && aiCredential(ctx, auth, ns, '', (field) => `${path}.policies.auth.${field}`);
  if (typeof credential === 'string') problems.push(credential);
  return {
    name,
    kind,
    settingsJson: stableStringify(settings),
    settings: aiProviderSettings(settings),
    host,
    port,
    path: p.path ?? '',
    pathPrefix: p.pathPrefix ?? '',
    policiesJson: stableStringify(p.policies ?? {}),
  };
}
