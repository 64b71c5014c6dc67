// Shared by the golden test and by anyone regenerating by hand: one input text → one stable YAML text.
import { X509Certificate, createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { formatProblem } from '../../src/problem.js';
import type { TranslateOptions } from '../../src/translate/objects/context.js';
import { sortKeys } from '../../src/translate/objects/read.js';
import { snapshots, translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';
import type {
  AiCredentialInput,
  AiEdgeInput,
  BackendTlsInput,
  PolicyFieldsInput,
  PromptGuardInput,
  PromptGuardStepInput,
} from '../../src/ir/types.js';
import type { BuiltResource, BuiltSnapshot } from '../../src/translate/built-ir.js';

export const GOLDEN_NOW = '2026-01-01T00:00:00Z';

export function goldenOptions(text: string): TranslateOptions {
  const opts: TranslateOptions = { controllerName: 'gw.dev/gateway-controller', now: GOLDEN_NOW, enableModels: true };
  const m = /^# options: (.*)$/m.exec(text);
  if (m?.[1]) Object.assign(opts, JSON.parse(m[1]) as Partial<TranslateOptions>);
  return opts;
}

const TLS_TESTDATA = join(import.meta.dirname, '../proxy/tls-testdata');
export const GOLDEN_DIR = join(import.meta.dirname, 'testdata');

/** A folder's golden cases: every `<case>.yaml` but the expectations and `_defaults.yaml`. */
export function goldenCaseFiles(dir: string = GOLDEN_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && !f.endsWith('.out.yaml') && !f.startsWith('_'))
    .sort();
}

/**
 * The folder's `_defaults.yaml` documents (the GatewayClass every case uses) come before the case's own,
 * so cases hold only what they test; a case that must not have them says `# defaults: none`.
 */
function withDefaults(text: string, dir: string): string {
  const file = join(dir, '_defaults.yaml');
  if (/^# defaults: none$/m.test(text) || !existsSync(file)) return text;
  // Its comment lines are left out so problems name the same lines as when a case held the objects itself.
  return `${readFileSync(file, 'utf8').replace(/^#.*\n/gm, '')}---\n${text}`;
}

/**
 * `{{tls:a.crt}}` in a case becomes the base64 of that test file, so Secrets in cases stay short;
 * `{{pem:ca.crt}}` becomes its text as a quoted YAML string (ConfigMap data is not base64).
 */
export function goldenInput(text: string, dir: string = GOLDEN_DIR): string {
  return withDefaults(text, dir)
    .replace(/\{\{tls:([\w.-]+)\}\}/g, (_m, file: string) => readFileSync(join(TLS_TESTDATA, file)).toString('base64'))
    .replace(/\{\{pem:([\w.-]+)\}\}/g, (_m, file: string) =>
      JSON.stringify(readFileSync(join(TLS_TESTDATA, file), 'utf8')),
    );
}

const certSummary = (pem: string): string => {
  const c = new X509Certificate(pem);
  return `${c.subject} ${c.subjectAltName ?? ''} sha256 ${c.fingerprint256.slice(0, 23)}`;
};
const keySummary = (pem: string): string =>
  `redacted sha256 ${createHash('sha256').update(pem).digest('hex').slice(0, 16)}`;

/** Backend TLS of every route edge, with the same summaries as listener certificates. */
function redactBackendTls(r: BuiltResource): BuiltResource {
  if (r.kind !== 'route' || !(r.route.backends ?? []).some((b) => b.tls)) return r;
  return {
    ...r,
    route: {
      ...r.route,
      backends: (r.route.backends ?? []).map((b) => (!b.tls ? b : { ...b, tls: tlsSummary(b.tls) })),
    },
  };
}

function tlsSummary(tls: BackendTlsInput): BackendTlsInput {
  return {
    ...tls,
    caPem: tls.caPem && certSummary(tls.caPem),
    clientCertChainPem: tls.clientCertChainPem && certSummary(tls.clientCertChainPem),
    clientPrivateKeyPem: tls.clientPrivateKeyPem && keySummary(tls.clientPrivateKeyPem),
  };
}

/** Upstream LLM keys and provider TLS of every AI edge, summarised like TLS keys and certificates. */
function redactAiKeys(r: BuiltResource): BuiltResource {
  if (r.kind !== 'route' || !(r.route.backends ?? []).some((b) => b.ai)) return r;
  const redactEdge = (ai: AiEdgeInput): AiEdgeInput => ({
    ...ai,
    providers: Object.fromEntries(
      Object.entries(ai.providers ?? {}).map(([name, p]) => [
        name,
        {
          ...p,
          ...(p.credential ? { credential: credentialSummary(p.credential) } : {}),
          ...(p.tls ? { tls: tlsSummary(p.tls) } : {}),
        },
      ]),
    ),
  });
  return {
    ...r,
    route: { ...r.route, backends: (r.route.backends ?? []).map((b) => (b.ai ? { ...b, ai: redactEdge(b.ai) } : b)) },
  };
}

/** `backend.auth` credentials of non-AI edges and their MCP targets, and inline keys in every edge's policy fields, summarised like the AI edges' keys. */
function redactEdgeKeys(r: BuiltResource): BuiltResource {
  if (r.kind !== 'route') return r;
  return {
    ...r,
    route: {
      ...r.route,
      backends: (r.route.backends ?? []).map((b) => ({
        ...b,
        ...(b.policy ? { policy: withoutInlineKey(b.policy) } : {}),
        ...(b.targetPolicies
          ? {
              targetPolicies: Object.fromEntries(
                Object.entries(b.targetPolicies).map(([t, p]) => [t, withoutInlineKey(p)]),
              ),
            }
          : {}),
        ...(b.credential ? { credential: credentialSummary(b.credential) } : {}),
        ...(b.promptGuard ? { promptGuard: promptGuardSummary(b.promptGuard) } : {}),
        ...(b.targetCredentials
          ? {
              targetCredentials: Object.fromEntries(
                Object.entries(b.targetCredentials).map(([t, c]) => [t, credentialSummary(c)]),
              ),
            }
          : {}),
      })),
    },
  };
}

/** The credentials of cloud and moderation prompt-guard steps, summarised like the edge's own. */
function promptGuardSummary(pg: PromptGuardInput): PromptGuardInput {
  const step = (st: PromptGuardStepInput): PromptGuardStepInput => {
    for (const k of ['moderation', 'bedrockGuardrails', 'modelArmor'] as const) {
      const g = st[k];
      if (g?.credential) return { ...st, [k]: { ...g, credential: credentialSummary(g.credential) } };
    }
    return st;
  };
  return { ...pg, request: (pg.request ?? []).map(step), response: (pg.response ?? []).map(step) };
}

/** An inline `backend.auth.key` in an edge's policy fields, as a hash prefix like the credential's. */
function withoutInlineKey(p: PolicyFieldsInput): PolicyFieldsInput {
  const auth = p.fields?.['backend.auth'];
  if (!auth) return p;
  const v = JSON.parse(auth) as Record<string, unknown>;
  if (typeof v.key !== 'string') return p;
  return { ...p, fields: { ...p.fields, 'backend.auth': JSON.stringify({ ...v, key: keySummary(v.key) }) } };
}

/** Upstream LLM keys of GwModel providers, summarised like the AI edges' keys. */
function redactModelKeys(r: BuiltResource): BuiltResource {
  if (r.kind !== 'model' || !r.model.provider?.credential) return r;
  const c = r.model.provider.credential;
  return { ...r, model: { ...r.model, provider: { ...r.model.provider, credential: credentialSummary(c) } } };
}

/** Keys, secrets and private keys of an upstream credential as hash prefixes; ids and sources as they are. */
function credentialSummary(c: AiCredentialInput): AiCredentialInput {
  const hide = (v: string | undefined): string => (v ? keySummary(v) : '');
  switch (c.kind) {
    case 'key':
      return { ...c, key: hide(c.key) };
    case 'aws':
      return {
        ...c,
        aws: { ...c.aws, secretAccessKey: hide(c.aws?.secretAccessKey), sessionToken: hide(c.aws?.sessionToken) },
      };
    case 'azure':
      return { ...c, azure: { ...c.azure, clientSecret: hide(c.azure?.clientSecret) } };
    case 'gcp':
      return { ...c, gcp: { ...c.gcp, privateKey: hide(c.gcp?.privateKey) } };
    case 'tokenExchange':
      return { ...c, tokenExchange: endpointTlsSummary(c.tokenExchange) };
    case 'crossAppAccess':
      return {
        ...c,
        crossAppAccess: {
          identityProvider: endpointTlsSummary(c.crossAppAccess?.identityProvider),
          resourceServer: endpointTlsSummary(c.crossAppAccess?.resourceServer),
        },
      };
    default:
      return c;
  }
}

/** A token endpoint's TLS (TokenExchangeCredential.tls) summarised like any backend TLS. */
function endpointTlsSummary<T extends { tls?: BackendTlsInput | null }>(e: T | null | undefined): T | undefined {
  if (!e) return undefined;
  return e.tls ? { ...e, tls: tlsSummary(e.tls) } : e;
}

/** Certificates as subject and fingerprint, keys as a hash prefix: goldens never hold key material. */
function redactTls(snapshot: BuiltSnapshot): BuiltSnapshot {
  return {
    ...snapshot,
    resources: snapshot.resources
      .map(redactBackendTls)
      .map(redactAiKeys)
      .map(redactEdgeKeys)
      .map(redactModelKeys)
      .map((r) =>
        r.kind !== 'listener' || !r.listener.tls
          ? r
          : {
              ...r,
              listener: {
                ...r.listener,
                tls: {
                  ...r.listener.tls,
                  certificates: (r.listener.tls.certificates ?? []).map((c) => {
                    const leaf = new X509Certificate(c.certChainPem ?? '');
                    return {
                      certChainPem: `${leaf.subject} ${leaf.subjectAltName ?? ''} sha256 ${leaf.fingerprint256.slice(0, 23)}`,
                      privateKeyPem: `redacted sha256 ${createHash('sha256')
                        .update(c.privateKeyPem ?? '')
                        .digest('hex')
                        .slice(0, 16)}`,
                      source: c.source,
                    };
                  }),
                },
              },
            },
      ),
  };
}

export function renderGolden(input: string, source: string): string {
  const text = goldenInput(input);
  const store = createStore();
  const { objects, problems } = parseManifests(text, source);
  for (const { kind, obj } of objects) problems.push(...putObject(store, kind, obj, source).problems);
  const state = translateAll(store, goldenOptions(text));
  const out = {
    problems: problems.map(formatProblem),
    snapshots: Object.fromEntries([...snapshots(state)].map(([k, v]) => [k, redactTls(v)])),
    statuses: Object.fromEntries([...state.statuses].sort(([a], [b]) => (a < b ? -1 : 1))),
  };
  return stringify(sortKeys(out), { lineWidth: 0, aliasDuplicateObjects: false });
}

export interface GoldenSnapshot {
  file: string;
  gateway: string;
  snapshot: BuiltSnapshot;
}

const translatedCases = new Map<string, readonly GoldenSnapshot[]>();

/**
 * One golden input case, translated: one entry per gateway. Translating the cases is most of the cost of
 * the files that read them, so each is translated once per module instance (files sharing a worker, the
 * `pure` vitest project, share them). Deep-frozen, so a reader that changed a snapshot fails instead of
 * changing what the next reader checks.
 */
export function goldenCaseSnapshots(file: string): readonly GoldenSnapshot[] {
  let cached = translatedCases.get(file);
  if (!cached) {
    const text = goldenInput(readFileSync(join(GOLDEN_DIR, file), 'utf8'));
    const store = createStore();
    for (const { kind, obj } of parseManifests(text, file).objects) putObject(store, kind, obj, file);
    cached = [...snapshots(translateAll(store, goldenOptions(text)))].map(([gateway, snapshot]) =>
      deepFreeze({ file, gateway, snapshot }),
    );
    translatedCases.set(file, cached);
  }
  return cached;
}

/** Every golden input case, translated: one entry per (case file, gateway). */
export function goldenSnapshots(): readonly GoldenSnapshot[] {
  return goldenCaseFiles().flatMap(goldenCaseSnapshots);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
