// GwBackend and Service → IR Backend. Every GwBackend kind of seed 001 maps onto one IR backend.
import { lookup, read, type Ctx } from '../objects/context.js';
import type {
  AiProviderInput,
  BackendInput,
  FailureModeInput,
  McpTargetInput,
  PrefixModeInput,
  SessionRoutingInput,
} from '../../ir/types.js';
import type { Named } from '../built-ir.js';
import { num, rec, recs, selectorMatches, stableStringify, str, type Rec } from '../objects/read.js';
import { aiProviderSettings } from './backend-ai.js';

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
  targetPolicies: Record<string, Rec>;
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

export function translateService(namespace: string, name: string, port: number): BackendInput {
  return {
    name: serviceBackendName(namespace, name, port),
    kind: 'static',
    static: { host: serviceHost(name, namespace), port },
  };
}

export function translateGwBackend(ctx: Ctx, key: string, spec: Rec): BackendResult {
  const ns = key.slice(0, key.indexOf('/'));
  const out: BackendResult = {
    backend: { name: gwBackendName(key) },
    refProblems: [],
    targetPolicies: {},
    targets: [],
    providers: [],
  };
  const mcp = rec(spec.mcp),
    ai = rec(spec.ai),
    a2a = rec(spec.a2a),
    st = rec(spec.static),
    aws = rec(spec.aws);
  if (mcp) {
    const targets: Named<McpTargetInput>[] = [];
    recs(mcp.targets).forEach((t, i) => {
      const name = str(t.name) ?? `target-${i}`;
      const stat = rec(t.static);
      if (stat) {
        const target = staticTarget(ctx, ns, name, stat, `spec.mcp.targets[${i}].static`, out.refProblems);
        if (target) targets.push(target);
        const p = rec(stat.policies);
        if (p) out.targetPolicies[name] = p;
        return;
      }
      targets.push(...selectorTargets(ctx, ns, name, rec(t.selector) ?? {}));
    });
    out.targets = targets.map((t) => t.name);
    out.backend.kind = 'mcp';
    out.backend.mcp = {
      targets,
      prefixMode: PREFIX_MODES[str(mcp.prefixMode) ?? 'Conditional'] ?? 'CONDITIONAL',
      failureMode: FAILURE_MODES[str(mcp.failureMode) ?? 'FailClosed'] ?? 'FAIL_CLOSED',
      sessionRouting: SESSION_ROUTINGS[str(mcp.sessionRouting) ?? 'Stateful'] ?? 'STATEFUL',
    };
  } else if (ai) {
    const provider = rec(ai.provider);
    const own = (name: string, p: Rec) => {
      const pol = rec(p.policies);
      if (pol) out.targetPolicies[name] = pol;
    };
    if (provider) own(key.slice(ns.length + 1), provider);
    recs(ai.groups).forEach((g) => recs(g.providers).forEach((p, pi) => own(str(p.name) ?? `provider-${pi}`, p)));
    const groups = provider
      ? [{ providers: [aiProvider(ctx, ns, key.slice(ns.length + 1), provider, 'spec.ai.provider', out.refProblems)] }]
      : recs(ai.groups).map((g, gi) => ({
          providers: recs(g.providers).map((p, pi) =>
            aiProvider(
              ctx,
              ns,
              str(p.name) ?? `provider-${pi}`,
              p,
              `spec.ai.groups[${gi}].providers[${pi}]`,
              out.refProblems,
            ),
          ),
        }));
    out.providers = groups.flatMap((g) => g.providers.map((p) => p.name));
    out.backend.kind = 'ai';
    out.backend.ai = { groups };
  } else if (a2a) {
    out.backend.kind = 'a2a';
    out.backend.a2a = { host: str(a2a.host) ?? '', port: num(a2a.port) ?? 0 };
  } else if (st) {
    out.backend.kind = 'static';
    out.backend.static = { host: str(st.host) ?? '', port: num(st.port) ?? 0 };
  } else if (aws) {
    const core = rec(aws.agentCore) ?? {};
    out.backend.kind = 'aws';
    out.backend.aws = { agentRuntimeArn: str(core.agentRuntimeArn) ?? '', qualifier: str(core.qualifier) ?? '' };
  } else {
    out.backend.kind = 'dynamicForwardProxy';
    out.backend.dynamicForwardProxy = {};
  }
  return out;
}

function staticTarget(
  ctx: Ctx,
  ns: string,
  name: string,
  s: Rec,
  path: string,
  problems: string[],
): Named<McpTargetInput> | undefined {
  const protocol = s.protocol === 'SSE' ? 'SSE' : 'STREAMABLE_HTTP';
  const urlPath = str(s.path) ?? (protocol === 'SSE' ? '/sse' : '/mcp');
  const port = num(s.port) ?? 0;
  let host = str(s.host);
  const ref = rec(s.backendRef);
  if (ref) {
    const svc = str(ref.name) ?? '';
    if (!read(ctx, 'Service', `${ns}/${svc}`)) {
      problems.push(`${path}.backendRef: Service ${ns}/${svc} does not exist`);
      return undefined;
    }
    host = serviceHost(svc, ns);
  }
  return { name, transport: 'remote', remote: { url: `http://${host ?? ''}:${port}${urlPath}`, protocol } };
}

/** Services chosen by label, in namespaces chosen by label (default: the backend's own namespace). */
function selectorTargets(ctx: Ctx, ns: string, name: string, sel: Rec): Named<McpTargetInput>[] {
  const nsSel = rec(sel.namespaces);
  const namespaces = nsSel
    ? lookup(ctx, 'byNamespace', 'Namespace/').filter((n) =>
        selectorMatches(nsSel, read(ctx, 'Namespace', n)?.obj.metadata.labels),
      )
    : [ns];
  const out: Named<McpTargetInput>[] = [];
  for (const n of namespaces) {
    for (const sk of lookup(ctx, 'byNamespace', `Service/${n}`)) {
      const svc = read(ctx, 'Service', sk);
      if (!svc || !selectorMatches(rec(sel.services), svc.obj.metadata.labels)) continue;
      const ports = recs(rec(svc.obj.spec)?.ports);
      const mcpPort = ports.find((p) => /mcp/i.test(str(p.appProtocol) ?? '')) ?? ports[0];
      if (!mcpPort) continue;
      const sse = /sse/i.test(str(mcpPort.appProtocol) ?? '');
      const svcName = svc.obj.metadata.name;
      out.push({
        name: n === ns ? `${name}-${svcName}` : `${name}-${n}-${svcName}`,
        transport: 'remote',
        remote: {
          url: `http://${serviceHost(svcName, n)}:${num(mcpPort.port) ?? 0}${sse ? '/sse' : '/mcp'}`,
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
  p: Rec,
  path: string,
  problems: string[],
): Named<AiProviderInput> {
  const kind = PROVIDER_KINDS.find((k) => p[k] !== undefined) ?? 'custom';
  const settings = rec(p[kind]) ?? {};
  const ref = rec(settings.backendRef);
  let host = str(p.host) ?? '';
  let port = num(p.port) ?? 0;
  if (kind === 'custom' && ref) {
    const svc = str(ref.name) ?? '';
    if (!read(ctx, 'Service', `${ns}/${svc}`))
      problems.push(`${path}.custom.backendRef: Service ${ns}/${svc} does not exist`);
    host = serviceHost(svc, ns);
    port = num(ref.port) ?? port;
  }
  return {
    name,
    kind,
    settingsJson: stableStringify(settings),
    settings: aiProviderSettings(settings),
    host,
    port,
    path: str(p.path) ?? '',
    pathPrefix: str(p.pathPrefix) ?? '',
    policiesJson: stableStringify(rec(p.policies) ?? {}),
  };
}
