// A regex prompt guard (seed 001 AIPromptGuard `regex`): Mask rewrites matches, Reject answers with the
// CustomResponse, Audit logs which patterns matched. Matched text is never logged: it is what the guard protects.
import type { Logger } from 'pino';
import type { RegexGuard__Output as RegexGuard } from '../../ir/gen/gw/ir/v1/RegexGuard.js';
import type { GuardRequestContext, GuardVerdict } from './types.js';
import { rewriteTexts, type GuardPhase } from './content.js';
import { customRejection } from './verdicts.js';

export interface GuardStep {
  run(body: Record<string, unknown>, phase: GuardPhase, ctx: GuardRequestContext, log: Logger): Promise<GuardVerdict>;
}

/** Throws when a pattern does not compile (the translator checked it, so only a foreign IR gets here). */
export function regexStep(g: RegexGuard, source: string): GuardStep {
  const patterns = g.patterns.map((p) => ({
    name: p.name || '(unnamed)',
    mask: p.mask || '****',
    re: new RegExp(p.pattern, 'g'),
  }));
  const scopes = new Set(
    g.scopes.length > 0
      ? g.scopes
      : (['SCOPE_SYSTEM_PROMPT', 'SCOPE_MESSAGES', 'SCOPE_TOOL_OUTPUT', 'SCOPE_TOOL_INPUT'] as const),
  );
  const action = g.action === 'REGEX_MASK' ? 'Mask' : g.action === 'REGEX_AUDIT' ? 'Audit' : 'Reject';
  return {
    run(body, phase, _ctx, log) {
      const matched = new Set<string>();
      const masked = rewriteTexts(body, phase, scopes, (text) => {
        let out = text;
        for (const p of patterns) {
          p.re.lastIndex = 0;
          if (!p.re.test(out)) continue;
          matched.add(p.name);
          if (action === 'Mask') out = out.replace(p.re, p.mask);
        }
        return out;
      });
      if (matched.size === 0) return Promise.resolve({ action: 'allow' });
      const names = [...matched].sort();
      if (action === 'Audit') {
        log.warn(
          { guard: source, phase, patterns: names },
          'prompt guard audit: content matched; passed unchanged (the step would act if its action were not Audit)',
        );
        return Promise.resolve({ action: 'allow' });
      }
      if (action === 'Mask') {
        log.info({ guard: source, phase, patterns: names }, 'prompt guard masked content');
        return Promise.resolve(masked ? { action: 'modify', body: masked } : { action: 'allow' });
      }
      log.info(
        { guard: source, phase, patterns: names, status: g.rejectStatus || 403 },
        'prompt guard rejected content',
      );
      return Promise.resolve(customRejection({ rejectStatus: g.rejectStatus, rejectMessage: g.rejectMessage }));
    },
  };
}
