// The few fields of Gw objects read whether or not the object passed validation: the store's indexes, the
// status of an invalid object (its targets and parents are still listed), and which statuses a change can
// touch. Narrowed like the Gateway API kinds (narrow.ts); everything else of a Gw object is read typed, and
// only from valid objects (gw-objects.ts).
import { parentReference, type ParentReference } from './gateway-api.js';
import { list, memoized, number, object, optional, raw, string, type Narrow } from './narrow.js';
import { rec } from './read.js';

/** A GwPolicy targetRef or targetSelector. */
export interface UncheckedTarget {
  group?: string;
  kind?: string;
  name?: string;
  sectionName?: string;
  port?: number;
  /** Compared as written by selectorMatches, which reads it defensively. */
  matchLabels?: unknown;
  /** sectionName and port as written: the policy's status echoes them in each ancestorRef. */
  written: { sectionName?: unknown; port?: unknown };
}

type SecretRefHolder = { secretRef?: { name?: string } };
/** API keys by name or by labels: which Secret or ConfigMap changes concern the policy's status. */
type KeySource = SecretRefHolder & { secretSelector?: unknown; configMapSelector?: unknown };

/** A guardrail processor's reference to its Service. */
export interface UncheckedProcessorRef {
  namespace?: string;
  name?: string;
}

export interface UncheckedPolicySpec {
  targetRefs?: readonly UncheckedTarget[];
  targetSelectors?: readonly UncheckedTarget[];
  traffic?: { basicAuthentication?: SecretRefHolder; apiKeyAuthentication?: KeySource };
  backend?: {
    mcp?: { guardrails?: { processors?: readonly { remote?: { backendRef?: UncheckedProcessorRef } }[] } };
  };
}

export interface UncheckedModelSpec {
  parentRefs?: readonly ParentReference[];
  provider?: string;
  baseURL?: string;
  /** `match.model`: which requests an invalid model that sets security fields still refuses. */
  match?: string;
}

/** What a GwPolicy targeting a GwBackend asks of it. */
export interface UncheckedBackendSpec {
  /** The first of ai, mcp, a2a, static and aws the spec sets, whatever its value. */
  type?: (typeof BACKEND_TYPES)[number];
  /** MCP target and AI provider names: what a targetRef's sectionName may name. */
  sections: readonly string[];
}

const BACKEND_TYPES = ['ai', 'mcp', 'a2a', 'static', 'aws'] as const;

const target = object<Omit<UncheckedTarget, 'written'>>({
  group: string,
  kind: string,
  name: string,
  sectionName: string,
  port: number,
  matchLabels: raw,
});
const written = object<UncheckedTarget['written']>({ sectionName: raw, port: raw });
const uncheckedTarget: Narrow<UncheckedTarget> = (v) => ({ ...target(v), written: written(v) });
const secretRefHolder = optional<SecretRefHolder>({ secretRef: optional({ name: string }) });
const keySource = optional<KeySource>({
  secretRef: optional({ name: string }),
  secretSelector: raw,
  configMapSelector: raw,
});

const policy = memoized(
  object<UncheckedPolicySpec>({
    targetRefs: list(uncheckedTarget),
    targetSelectors: list(uncheckedTarget),
    traffic: optional({ basicAuthentication: secretRefHolder, apiKeyAuthentication: keySource }),
    backend: optional({
      mcp: optional({
        guardrails: optional({
          processors: list(object({ remote: optional({ backendRef: optional({ namespace: string, name: string }) }) })),
        }),
      }),
    }),
  }),
);

const modelFields = object<Omit<UncheckedModelSpec, 'match'>>({
  parentRefs: list(parentReference),
  provider: string,
  baseURL: string,
});
const modelMatchOf = object<{ match?: { model?: string } }>({ match: optional({ model: string }) });
const model = memoized((v: unknown): UncheckedModelSpec => {
  const out: UncheckedModelSpec = modelFields(v);
  const match = modelMatchOf(v).match?.model;
  if (match !== undefined) out.match = match;
  return out;
});

const names = list(object<{ name?: string }>({ name: string }));
const backendSections = object({
  mcp: optional({ targets: names }),
  ai: optional({ groups: list(object({ providers: names })) }),
});

const backend = memoized((v: unknown): UncheckedBackendSpec => {
  const spec = rec(v) ?? {};
  const { mcp, ai } = backendSections(spec);
  const sections = [
    ...(mcp?.targets ?? []).map((t) => t.name),
    ...(ai?.groups ?? []).flatMap((g) => (g.providers ?? []).map((p) => p.name)),
  ].filter((n): n is string => n !== undefined);
  const type = BACKEND_TYPES.find((k) => spec[k] !== undefined);
  return type ? { type, sections } : { sections };
});

/** A GwPolicy's spec, valid or not. */
export const uncheckedPolicySpec = (spec: unknown): UncheckedPolicySpec => policy(spec);
/** A GwModel's spec, valid or not. */
export const uncheckedModelSpec = (spec: unknown): UncheckedModelSpec => model(spec);
/** A GwBackend's spec, valid or not. */
export const uncheckedBackendSpec = (spec: unknown): UncheckedBackendSpec => backend(spec);
