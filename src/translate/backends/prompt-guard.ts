// `backend.ai.promptGuard` of one route → backend edge → the IR PromptGuard (proto/gw/ir/v1 PromptGuard).
// Builtin patterns are expanded here, not in the proxy: the IR then says exactly what is matched (goldens
// show it), user and builtin patterns share one dialect checked once, and the proxy knows no builtin names.
import { condition, type ParentStatus } from '../status/conditions.js';
import { read, readGw, type Ctx } from '../objects/context.js';
import type { CredentialAuth, PromptGuardSpec } from '../objects/gw-types.js';
import { serviceHost } from './backends.js';
import type {
  AiCredentialInput,
  BackendRefInput,
  BedrockGuardrailsGuardInput,
  ModelArmorGuardInput,
  ModerationGuardInput,
  ContentScopeInput,
  PromptGuardInput,
  PromptGuardStepInput,
  RegexGuardInput,
  WebhookGuardInput,
} from '../../ir/types.js';
import type { EffectivePolicy } from '../policies/policy-merge.js';
import { serviceSpec } from '../objects/gateway-api.js';
import { stableStringify } from '../objects/read.js';
import { referenceAllowed } from '../objects/refs.js';
import { refKind } from '../objects/store.js';
import { GROUP } from '../objects/types.js';
import { aiCredential } from './backend-ai.js';
import { location } from './backend-identity.js';

/** One request step (a response step is the same without openAIModeration). */
type Step = NonNullable<PromptGuardSpec['request']>[number];
type CustomResponse = Step['customResponse'];

/** A translated prompt guard: both step lists and the unenforceable list are always set. */
type BuiltPromptGuard = PromptGuardInput & Required<Pick<PromptGuardInput, 'request' | 'response' | 'unenforceable'>>;

/** Seed 001 builtins; documented in docs/guardrails.md. Searched anywhere in the text, so anchored by \b. */
export const BUILTIN_REGEX: Record<string, { pattern: string; mask: string }> = {
  Ssn: { pattern: '\\b(?!000|666|9\\d\\d)\\d{3}-(?!00)\\d{2}-(?!0000)\\d{4}\\b', mask: '<SSN>' },
  CreditCard: {
    pattern: '\\b(?:\\d{4}[ -]?){3}\\d{4}\\b|\\b3[47]\\d{2}[ -]?\\d{6}[ -]?\\d{5}\\b',
    mask: '<CREDIT_CARD>',
  },
  PhoneNumber: {
    pattern: '(?:\\+1[ .-]?)?(?:\\(\\d{3}\\)|\\b\\d{3})[ .-]?\\d{3}[ .-]\\d{4}\\b|\\+[1-9]\\d{7,14}\\b',
    mask: '<PHONE_NUMBER>',
  },
  Email: { pattern: '\\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}\\b', mask: '<EMAIL>' },
  CaSin: { pattern: '\\b\\d{3}[ -]\\d{3}[ -]\\d{3}\\b', mask: '<CA_SIN>' },
};

const SCOPES: Record<string, ContentScopeInput> = {
  SystemPrompt: 'SCOPE_SYSTEM_PROMPT',
  Messages: 'SCOPE_MESSAGES',
  ToolOutput: 'SCOPE_TOOL_OUTPUT',
  ToolInput: 'SCOPE_TOOL_INPUT',
};
const ACTIONS = { Reject: 'REGEX_REJECT', Mask: 'REGEX_MASK', Audit: 'REGEX_AUDIT' } as const;
/** CRD defaults of CustomResponse (src/api/ai.ts), repeated because stored objects are not defaulted. */
const DEFAULT_REJECT = { status: 403, message: 'The request was rejected by a prompt guard.' };

/** What the translator may ask about the cluster; a plain interface so the core stays testable. */
export interface PromptGuardLookup {
  /** Ports of Service `ns/name`, or undefined when it does not exist. */
  servicePorts(namespace: string, name: string): number[] | undefined;
  /** `static` host and port of GwBackend `ns/name`; undefined when missing, `null` when not a static backend. */
  staticBackend(namespace: string, name: string): { host: string; port: number } | null | undefined;
  /** Whether an object of `fromKind` in `fromNs` may reference `kind` `toNs/name` (ReferenceGrant). */
  referenceAllowed(fromKind: string, fromNs: string, group: string, kind: string, toNs: string, name: string): boolean;
  /** An auth object's `key` or `secretRef` (a Secret in `ns`) resolved; a string says why it cannot be. */
  credential(
    auth: CredentialAuth,
    ns: string,
    source: string,
    at: (field: string) => string,
  ): AiCredentialInput | string | undefined;
}

export function promptGuardLookup(ctx: Ctx): PromptGuardLookup {
  return {
    servicePorts: (ns, name) => {
      const svc = read(ctx, 'Service', `${ns}/${name}`);
      return svc ? (serviceSpec(svc).ports ?? []).map((p) => p.port ?? 0) : undefined;
    },
    staticBackend: (ns, name) => {
      const b = readGw(ctx, 'GwBackend', `${ns}/${name}`);
      if (!b) return undefined;
      const st = b.spec.static;
      return st ? { host: st.host, port: st.port } : null;
    },
    credential: (auth, ns, source, at) => aiCredential(ctx, auth, ns, source, at),
    referenceAllowed: (fromKind, fromNs, group, kind, toNs, name) =>
      referenceAllowed(
        ctx,
        { group: GROUP.gw, kind: fromKind, namespace: fromNs },
        { group, kind, namespace: toNs, name },
      ),
  };
}

/**
 * The edge's prompt guard from its merged policy fields (`backend.ai`) and the per-provider ones;
 * undefined when the edge has none.
 */
export function edgePromptGuard(
  policy: EffectivePolicy,
  targetPolicies: Record<string, EffectivePolicy>,
  lookup: PromptGuardLookup,
): PromptGuardInput | undefined {
  const own = promptGuardOf(policy);
  const providers = Object.entries(targetPolicies)
    .map(([name, p]) => ({ name, guard: promptGuardOf(p) }))
    .filter((p) => stableStringify(p.guard?.spec) !== stableStringify(own?.spec));
  if (!own && providers.length === 0) return undefined;
  const out = own
    ? translatePromptGuard(own.spec, own.source, lookup)
    : { request: [], response: [], streaming: 'PROMPT_GUARD_STREAMING_DISABLED' as const, unenforceable: [] };
  // The LLM guards are chosen per edge, before a provider is picked: different per-provider guards cannot be honoured.
  for (const p of providers.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    out.unenforceable.push(
      `provider ${p.name} has its own backend.ai.promptGuard (from ${p.guard?.source ?? 'a policy that removes it'}), which this proxy does not apply per provider`,
    );
  }
  return out;
}

function promptGuardOf(p: EffectivePolicy): { spec: PromptGuardSpec; source: string } | undefined {
  const spec = p.fields['backend.ai']?.promptGuard;
  return spec ? { spec, source: p.provenance['backend.ai']?.source ?? 'policy' } : undefined;
}

/**
 * Pure: one `promptGuard` object (from `source`, e.g. `GwPolicy ns/name`, at field path `field`, e.g.
 * `spec.policies.promptGuard` of a GwModel) → IR.
 */
export function translatePromptGuard(
  spec: PromptGuardSpec,
  source: string,
  lookup: PromptGuardLookup,
  field = 'backend.ai.promptGuard',
): BuiltPromptGuard {
  const [kind = 'GwPolicy', key = ''] = source.split(' ');
  const from = { kind, namespace: key.split('/')[0] ?? '' };
  const steps = (phase: 'request' | 'response') =>
    (spec[phase] ?? []).map((s, i) => step(s, `${source} ${field}.${phase}[${i}]`, from, lookup));
  return {
    request: steps('request'),
    response: steps('response'),
    streaming: spec.streaming === 'Buffered' ? 'PROMPT_GUARD_STREAMING_BUFFERED' : 'PROMPT_GUARD_STREAMING_DISABLED',
    unenforceable: [],
  };
}

function step(
  s: Step,
  source: string,
  from: { kind: string; namespace: string },
  lookup: PromptGuardLookup,
): PromptGuardStepInput {
  const unsupported = (kind: string, reason: string): PromptGuardStepInput => ({
    source,
    kind: 'unsupported',
    unsupported: { kind, reason },
  });
  const regex = s.regex,
    webhook = s.webhook,
    moderation = s.openAIModeration;
  if (regex) {
    const r = regexGuard(regex, s.customResponse);
    return typeof r === 'string' ? unsupported('regex', `${source}.regex${r}`) : { source, kind: 'regex', regex: r };
  }
  if (webhook) {
    const w = webhookGuard(webhook, from, lookup);
    return typeof w === 'string'
      ? unsupported('webhook', `${source}.webhook.backendRef: ${w}`)
      : { source, kind: 'webhook', webhook: w };
  }
  if (moderation) {
    const m = moderationGuard(moderation, s.customResponse, source, from, lookup);
    return typeof m === 'string' ? unsupported('openAIModeration', m) : { source, kind: 'moderation', moderation: m };
  }
  if (s.bedrockGuardrails) {
    const b = bedrockGuard(s.bedrockGuardrails, s.customResponse, source, from, lookup);
    return typeof b === 'string'
      ? unsupported('bedrockGuardrails', b)
      : { source, kind: 'bedrockGuardrails', bedrockGuardrails: b };
  }
  if (s.googleModelArmor) {
    const g = modelArmorGuard(s.googleModelArmor, s.customResponse, source, from, lookup);
    return typeof g === 'string' ? unsupported('googleModelArmor', g) : { source, kind: 'modelArmor', modelArmor: g };
  }
  return unsupported('unknown', `${source} sets no guard kind this proxy knows`);
}

function regexGuard(r: NonNullable<Step['regex']>, custom: CustomResponse): RegexGuardInput | string {
  const patterns: RegexGuardInput['patterns'] = [];
  for (const b of r.builtins ?? []) {
    const builtin = BUILTIN_REGEX[b];
    if (!builtin) return `.builtins names unknown builtin "${b}"`;
    patterns.push({ name: b, ...builtin });
  }
  for (const [i, m] of (r.matches ?? []).entries()) {
    const pattern = m.pattern;
    const name = m.name ?? '';
    let re: RegExp;
    try {
      re = new RegExp(pattern, 'g');
    } catch (err) {
      return `.matches[${i}].pattern is not a valid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`;
    }
    // A pattern that matches nothing at all would mask between every character or reject every prompt.
    if (re.test('')) return `.matches[${i}].pattern matches the empty string, so it would match every text`;
    patterns.push({ name, pattern, mask: name ? `<${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}>` : '****' });
  }
  if (patterns.length === 0) return ' sets neither matches nor builtins';
  const scopes = (r.scopes ?? []).map((s) => SCOPES[s]).filter((s): s is ContentScopeInput => s !== undefined);
  return {
    patterns,
    action: ACTIONS[r.action ?? 'Reject'],
    scopes: scopes.length > 0 ? [...new Set(scopes)] : Object.values(SCOPES),
    rejectStatus: custom?.statusCode ?? DEFAULT_REJECT.status,
    rejectMessage: custom?.message ?? DEFAULT_REJECT.message,
  };
}

function webhookGuard(
  w: NonNullable<Step['webhook']>,
  from: { kind: string; namespace: string },
  lookup: PromptGuardLookup,
): WebhookGuardInput | string {
  const ref = w.backendRef;
  const name = ref.name,
    ns = ref.namespace ?? from.namespace;
  const kind = refKind(ref.group, ref.kind ?? 'Service', 'Service');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(w.headers ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)))
    headers[k.toLowerCase()] = v;
  if (kind !== 'Service' && kind !== 'GwBackend')
    return `kind ${ref.kind ?? ''} is not supported; use a Service or a static GwBackend`;
  if (!lookup.referenceAllowed(from.kind, from.namespace, kind === 'Service' ? GROUP.core : GROUP.gw, kind, ns, name))
    return `${kind} ${ns}/${name} is in another namespace and no ReferenceGrant allows it`;
  if (kind === 'Service') {
    const port = ref.port;
    const ports = lookup.servicePorts(ns, name);
    if (!ports) return `Service ${ns}/${name} does not exist`;
    if (port === undefined || !ports.includes(port))
      return port === undefined ? `Service ${ns}/${name} needs a port` : `Service ${ns}/${name} has no port ${port}`;
    return { host: serviceHost(name, ns), port, headers, target: `Service ${ns}/${name}:${port}` };
  }
  const st = lookup.staticBackend(ns, name);
  if (st === undefined) return `GwBackend ${ns}/${name} does not exist`;
  if (st === null) return `GwBackend ${ns}/${name} is not a static backend`;
  return { host: st.host, port: st.port, headers, target: `GwBackend ${ns}/${name}` };
}

/** `openAIModeration`: the credential must resolve (an unresolved one refuses the edge, never calls unauthenticated). */
function moderationGuard(
  m: NonNullable<Step['openAIModeration']>,
  custom: CustomResponse,
  source: string,
  from: { kind: string; namespace: string },
  lookup: PromptGuardLookup,
): ModerationGuardInput | string {
  const credential = stepCredential(
    m.policies?.auth,
    `${source}.openAIModeration`,
    source,
    from,
    lookup,
    'an API key (key or secretRef) is required',
  );
  if (typeof credential === 'string') return credential;
  return { model: m.model ?? 'omni-moderation-latest', credential, ...rejectOf(m.action, custom) };
}

/** A step's `policies.auth` resolved, or why it cannot be (`required` when it is unset). */
function stepCredential(
  auth: CredentialAuth | undefined,
  step: string,
  source: string,
  from: { kind: string; namespace: string },
  lookup: PromptGuardLookup,
  required: string,
): AiCredentialInput | string {
  const at = (field: string): string => `${step}.policies.auth.${field}`;
  const credential = auth ? lookup.credential(auth, from.namespace, source, at) : undefined;
  return credential ?? `${step}.policies.auth: ${required}`;
}

/** The CustomResponse of a Reject/Audit step, defaults applied. */
function rejectOf(
  action: 'Reject' | 'Audit' | undefined,
  custom: CustomResponse,
): Pick<ModerationGuardInput, 'action' | 'rejectStatus' | 'rejectMessage'> {
  return {
    action: action === 'Audit' ? 'REGEX_AUDIT' : 'REGEX_REJECT',
    rejectStatus: custom?.statusCode ?? DEFAULT_REJECT.status,
    rejectMessage: custom?.message ?? DEFAULT_REJECT.message,
  };
}

/**
 * `bedrockGuardrails`: `aws` signs (no Secret: the proxy's environment), `key`/`secretRef` is a Bedrock API key
 * at `location` (default `Authorization: Bearer`). No auth at all signs with the proxy's AWS environment, as the
 * Bedrock provider's `auth.aws: {}` does.
 */
function bedrockGuard(
  b: NonNullable<Step['bedrockGuardrails']>,
  custom: CustomResponse,
  source: string,
  from: { kind: string; namespace: string },
  lookup: PromptGuardLookup,
): BedrockGuardrailsGuardInput | string {
  const auth = b.policies?.auth ?? { aws: {} };
  const credential = stepCredential(
    { aws: auth.aws, key: auth.key, secretRef: auth.secretRef },
    `${source}.bedrockGuardrails`,
    source,
    from,
    lookup,
    'one of aws, key or secretRef is required',
  );
  if (typeof credential === 'string') return credential;
  // A location places a key; with SigV4 it would be a setting nothing acts on.
  if (auth.location && credential.kind !== 'key')
    return `${source}.bedrockGuardrails.policies.auth.location: only a key or secretRef is placed by location; aws signs the request`;
  return {
    identifier: b.identifier,
    version: b.version,
    region: b.region,
    credential,
    ...rejectOf(b.action, custom),
    ...(auth.location ? { keyLocation: location(auth.location) } : {}),
  };
}

/** `googleModelArmor`: `gcp` (a service account's token) or `key`/`secretRef` (a bearer token); one is required. */
function modelArmorGuard(
  g: NonNullable<Step['googleModelArmor']>,
  custom: CustomResponse,
  source: string,
  from: { kind: string; namespace: string },
  lookup: PromptGuardLookup,
): ModelArmorGuardInput | string {
  const credential = stepCredential(
    g.policies?.auth,
    `${source}.googleModelArmor`,
    source,
    from,
    lookup,
    'gcp, key or secretRef is required (implicit Google credentials are not read)',
  );
  if (typeof credential === 'string') return credential;
  return {
    templateId: g.templateId,
    projectId: g.projectId,
    location: g.location ?? 'us-central1',
    credential,
    ...rejectOf(g.action, custom),
  };
}

/**
 * Webhook steps whose reference did not resolve, and moderation steps whose key did not: the route's
 * ResolvedRefs turns false (the edge fails closed).
 */
export function promptGuardRefProblems(refs: (BackendRefInput | string)[]): { reason: string; message: string }[] {
  const out: { reason: string; message: string }[] = [];
  for (const r of refs) {
    if (typeof r === 'string' || !r.promptGuard) continue;
    for (const s of [...(r.promptGuard.request ?? []), ...(r.promptGuard.response ?? [])]) {
      const kind = s.kind === 'unsupported' ? s.unsupported?.kind : undefined;
      const reason = s.unsupported?.reason ?? '';
      if (kind === 'webhook')
        out.push({
          reason: reason.includes('ReferenceGrant') ? 'RefNotPermitted' : 'BackendNotFound',
          message: reason,
        });
      else if (kind === 'openAIModeration' || kind === 'bedrockGuardrails' || kind === 'googleModelArmor')
        out.push({ reason: 'InvalidBackendAuth', message: reason });
    }
  }
  return out;
}

export function markPromptGuardProblems(
  parents: ParentStatus[],
  problems: { reason: string; message: string }[],
  gen: number,
  now: string,
): void {
  const first = problems[0];
  if (!first) return;
  const message = [...new Set(problems.map((p) => p.message))].join('; ');
  for (const p of parents) {
    const i = p.conditions.findIndex((c) => c.type === 'ResolvedRefs');
    if (i >= 0 && p.conditions[i]?.status === 'True')
      p.conditions[i] = condition('ResolvedRefs', false, first.reason, message, gen, now);
  }
}
