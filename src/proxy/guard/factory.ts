// Prompt guards of a route → backend edge (IR BackendRef.prompt_guard) as the LlmGuards the LLM
// forwarder calls. Anything this proxy cannot enforce turns the edge into a 503, never into unguarded traffic.
import type { Logger } from 'pino';
import { ProblemError } from '../../problem.js';
import type { Dispatcher } from 'undici';
import type { PromptGuard__Output as PromptGuard } from '../../ir/gen/gw/ir/v1/PromptGuard.js';
import type { PromptGuardStep__Output as PromptGuardStep } from '../../ir/gen/gw/ir/v1/PromptGuardStep.js';
import type { Route } from '../../ir/types.js';
import type { GuardPhase } from './content.js';
import { webhookAgent, webhookPoolSettings, type WebhookPoolSettings } from './pool-env.js';
import { regexStep, type GuardStep } from './regex-step.js';
import type { GuardedEdge, GuardRequestContext, GuardVerdict, LlmGuards, LlmGuardsFactory } from './types.js';
import { errorVerdict } from './verdicts.js';
import { webhookStep } from './webhook-step.js';
import { DEFAULT_OPENAI_BASE_URL, moderationStep } from './moderation-step.js';
import { CloudAuth } from '../llm/cloud-auth.js';
import { bedrockStep } from './bedrock-step.js';
import type { CloudGuardOptions } from './vendor-call.js';
import { modelArmorStep } from './model-armor-step.js';

/** Data-plane variables replacing the cloud guards' regional endpoints (`scheme://host[:port]`). */
export const BEDROCK_GUARDRAILS_ENDPOINT_ENV = 'GW_BEDROCK_GUARDRAILS_ENDPOINT';
export const MODEL_ARMOR_ENDPOINT_ENV = 'GW_MODEL_ARMOR_ENDPOINT';

export interface PromptGuardsOptions {
  /** Where GUARDRAIL_WEBHOOK_* settings are read from (default process.env). */
  env?: Record<string, string | undefined>;
  /** HTTP client for webhook calls; default an undici Agent sized from `env`. Not closed by `close()` when given. */
  dispatcher?: Dispatcher;
}

export interface PromptGuards {
  llmGuards: LlmGuardsFactory;
  settings: WebhookPoolSettings;
  /** Closes the webhook connection pool. */
  close(): Promise<void>;
}

/**
 * Throws a ProblemError naming the variable when a GUARDRAIL_WEBHOOK_* setting is malformed, so a proxy
 * built with it refuses to start instead of guessing.
 */
export function createPromptGuards(opts: PromptGuardsOptions = {}): PromptGuards {
  const env = opts.env ?? process.env;
  const settings = webhookPoolSettings(env);
  const openAiBaseUrl = httpUrlOf(env, 'GW_OPENAI_BASE_URL') ?? DEFAULT_OPENAI_BASE_URL;
  const bedrockEndpoint = httpUrlOf(env, BEDROCK_GUARDRAILS_ENDPOINT_ENV);
  const modelArmorEndpoint = httpUrlOf(env, MODEL_ARMOR_ENDPOINT_ENV);
  // One token cache for every cloud guard of this proxy; AWS keys come from `env` when a step names none.
  const cloudAuth = new CloudAuth({ clock: Date.now, env });
  const own = opts.dispatcher ? undefined : webhookAgent(settings);
  const dispatcher = opts.dispatcher ?? (own as Dispatcher);
  const logged = new Set<string>();
  const llmGuards: LlmGuardsFactory = (route, ref, log) => {
    const reasons = unenforcedPromptGuard(route, ref);
    const pg = ref.promptGuard;
    if (!pg && reasons.length === 0) return undefined;
    let steps: { request: GuardStep[]; response: GuardStep[] } | undefined;
    if (pg && reasons.length === 0) {
      try {
        const build = (s: PromptGuardStep): GuardStep => {
          if (s.regex) return regexStep(s.regex, s.source);
          if (s.webhook)
            return webhookStep(s.webhook, s.source, { dispatcher, timeoutMs: settings.timeoutSeconds * 1000 });
          if (s.moderation)
            return moderationStep(s.moderation, s.source, {
              dispatcher,
              timeoutMs: settings.timeoutSeconds * 1000,
              baseUrl: openAiBaseUrl,
            });
          const cloud: CloudGuardOptions = { dispatcher, timeoutMs: settings.timeoutSeconds * 1000, auth: cloudAuth };
          if (s.bedrockGuardrails)
            return bedrockStep(s.bedrockGuardrails, s.source, { ...cloud, endpoint: bedrockEndpoint });
          if (s.modelArmor) return modelArmorStep(s.modelArmor, s.source, { ...cloud, endpoint: modelArmorEndpoint });
          throw new Error(`${s.source} is a guard kind this proxy does not know`);
        };
        steps = { request: pg.request.map(build), response: pg.response.map(build) };
      } catch (err) {
        reasons.push((err as Error).message);
      }
    }
    const glog = log.child({ route: route.name, backend: ref.backend });
    if (!steps || reasons.length > 0) {
      const key = `${route.name}\u0000${ref.backend}\u0000${reasons.join('\u0000')}`;
      if (!logged.has(key)) {
        logged.add(key);
        glog.error(
          { reasons },
          'prompt guards on this edge cannot be enforced by this proxy; refusing its requests with 503',
        );
      }
      const refuse = (): Promise<GuardVerdict> => Promise.resolve(notEnforced(route, ref));
      return { request: refuse, response: refuse };
    }
    return guardsOf(pg as PromptGuard, steps, settings.streamBufferBytes, glog);
  };
  return {
    llmGuards,
    settings,
    close: async () => {
      await own?.close();
    },
  };
}

function guardsOf(
  pg: PromptGuard,
  steps: { request: GuardStep[]; response: GuardStep[] },
  streamBufferBytes: number,
  log: Logger,
): LlmGuards {
  const out: LlmGuards = {};
  if (steps.request.length > 0) out.request = (body, ctx) => runSteps(steps.request, body, 'request', ctx, log);
  if (steps.response.length === 0) return out;
  out.response = (body, ctx) => runSteps(steps.response, body, 'response', ctx, log);
  // Buffered: the forwarder holds streamed answers for response(); Disabled lets them pass unchecked.
  if (pg.streaming === 'PROMPT_GUARD_STREAMING_BUFFERED') out.heldStreams = { maxBytes: streamBufferBytes };
  return out;
}

/** Steps in order: the first reject stops, a modify feeds the next step. */
async function runSteps(
  steps: GuardStep[],
  body: Record<string, unknown>,
  phase: GuardPhase,
  ctx: GuardRequestContext,
  log: Logger,
): Promise<GuardVerdict> {
  let current = body;
  let modified = false;
  for (const s of steps) {
    let v: GuardVerdict;
    try {
      v = await s.run(current, phase, ctx, log);
    } catch (err) {
      log.error({ phase, err: (err as Error).message }, 'prompt guard step failed; failing closed');
      return errorVerdict(500, 'guard_failed', 'a prompt guard failed while checking this request');
    }
    if (v.action === 'reject') return v;
    if (v.action === 'modify') {
      current = v.body;
      modified = true;
    }
  }
  return modified ? { action: 'modify', body: current } : { action: 'allow' };
}

function notEnforced(route: Route, ref: GuardedEdge): GuardVerdict {
  return errorVerdict(
    503,
    'guard_not_enforced',
    `route ${route.name} backend ${ref.backend} has prompt guards this proxy does not enforce; refusing rather than forwarding unguarded`,
  );
}

/**
 * Pure: why the edge's prompt guards cannot be enforced here (empty when they can). The lead's runtime
 * may call it to refuse such edges up front, like `unenforcedAuth`; the guards refuse on their own too.
 */
export function unenforcedPromptGuard(route: Route, ref: GuardedEdge): string[] {
  const pg = ref.promptGuard;
  // The translator emits prompt_guard whenever the effective backend.ai sets promptGuard (an unresolvable step
  // becomes `unsupported`), so an edge without it has no guards; no policy JSON is read here (issue 14).
  if (!pg) return [];
  const out = [...pg.unenforceable];
  for (const s of [...pg.request, ...pg.response]) {
    if (s.kind === 'unsupported' || (!s.regex && !s.webhook && !s.moderation && !s.bedrockGuardrails && !s.modelArmor))
      out.push(s.unsupported?.reason ?? `${s.source} is a guard kind this proxy does not know`);
  }
  return out;
}

/** An http(s) URL from variable `name` (undefined when unset); throws a ProblemError naming the variable otherwise. */
function httpUrlOf(env: Record<string, string | undefined>, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let ok = false;
  try {
    ok = ['http:', 'https:'].includes(new URL(raw).protocol);
  } catch {
    ok = false;
  }
  if (!ok)
    throw new ProblemError([
      {
        source: 'environment',
        path: name,
        message: `must be an http(s) URL, got ${JSON.stringify(raw)}`,
      },
    ]);
  return raw;
}
