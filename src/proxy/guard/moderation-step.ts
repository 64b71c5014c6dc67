// The `openAIModeration` prompt guard (seed 001 AIPromptGuard request step): OpenAI's moderation endpoint
// is asked about the prompt; Reject answers a flagged one with the step's CustomResponse, Audit logs it and
// lets it pass. When the endpoint cannot be asked the step fails closed (502), as every guard does.
import type { Dispatcher } from 'undici';
import type { ModerationGuard__Output as ModerationGuard } from '../../ir/gen/gw/ir/v1/ModerationGuard.js';
import { ProxyError } from '../proxy-error.js';
import { moderate, moderatedTexts } from '../llm/moderation.js';
import type { GuardStep } from './regex-step.js';
import { customRejection, errorVerdict } from './verdicts.js';

/** OpenAI's API; GW_OPENAI_BASE_URL replaces it (an egress gateway, a compatible mirror). */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface ModerationStepOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** `https://api.openai.com/v1` or GW_OPENAI_BASE_URL: `/moderations` is appended. */
  baseUrl: string;
}

/** Throws when the step has no key (the translator refuses such a step, so only a foreign IR gets here). */
export function moderationStep(g: ModerationGuard, source: string, opts: ModerationStepOptions): GuardStep {
  const key = g.credential?.kind === 'key' ? g.credential.key : '';
  if (!key) throw new Error(`${source}.openAIModeration has no API key`);
  const base = new URL(opts.baseUrl);
  const path = `${base.pathname.replace(/\/$/, '')}/moderations`;
  const audit = g.action === 'REGEX_AUDIT';
  return {
    async run(body, phase, _ctx, log) {
      const where = { guard: source, phase };
      let report;
      try {
        report = await moderate(
          {
            dispatcher: opts.dispatcher,
            origin: base.origin,
            path,
            headers: { authorization: `Bearer ${key}` },
            signal: AbortSignal.timeout(opts.timeoutMs),
          },
          g.model || 'omni-moderation-latest',
          moderatedTexts(body, phase === 'request' ? 'input' : 'output'),
        );
      } catch (err) {
        const reason = err instanceof ProxyError ? err.message : 'the moderation call timed out';
        log.error({ ...where, reason }, 'prompt guard moderation failed; failing closed');
        return errorVerdict(502, 'guard_unavailable', `prompt guard ${source}: ${reason}`);
      }
      if (!report.flagged) return { action: 'allow' };
      log.info({ ...where, categories: report.categories, top: report.top, audit }, 'prompt guard moderation flagged');
      if (audit) return { action: 'allow' };
      return customRejection(g);
    },
  };
}
