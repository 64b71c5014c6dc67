// The `googleModelArmor` prompt guard: Google Model Armor's `templates/{t}:sanitizeUserPrompt` (request) and
// `:sanitizeModelResponse` (response) check the texts of the prompt or the answer, joined into one text.
// `sanitizationResult.filterMatchState` MATCH_FOUND rejects (Reject) or is logged (Audit); NO_MATCH_FOUND
// passes when every filter ran. The call carries a service account's access token or a given bearer token.
import type { ModelArmorGuard__Output as ModelArmorGuard } from '../../ir/gen/gw/ir/v1/ModelArmorGuard.js';
import type { GuardStep } from './regex-step.js';
import { customRejection } from './verdicts.js';
import { callCloudGuard, guardTexts, rec, vendorFailure, type CloudGuardOptions } from './vendor-call.js';

/** Throws when the step has no credential (the translator always sets one, so only a foreign IR gets here). */
export function modelArmorStep(g: ModelArmorGuard, source: string, opts: CloudGuardOptions): GuardStep {
  const credential = g.credential;
  if (credential?.kind !== 'gcp' && credential?.kind !== 'key')
    throw new Error(`${source}.googleModelArmor has no Google credential or token`);
  const base = new URL(opts.endpoint ?? `https://modelarmor.${g.location}.rep.googleapis.com`);
  const template =
    `/v1/projects/${encodeURIComponent(g.projectId)}/locations/${encodeURIComponent(g.location)}` +
    `/templates/${encodeURIComponent(g.templateId)}`;
  const what = `prompt guard ${source} (Model Armor template ${g.templateId})`;
  return {
    async run(body, phase, _ctx, log) {
      const texts = guardTexts(body, phase);
      if (texts.length === 0) return { action: 'allow' };
      const where = { guard: source, phase, template: g.templateId };
      const text = texts.join('\n\n');
      const [path, payload] =
        phase === 'request'
          ? [`${template}:sanitizeUserPrompt`, JSON.stringify({ userPromptData: { text } })]
          : [`${template}:sanitizeModelResponse`, JSON.stringify({ modelResponseData: { text } })];
      const sent = await callCloudGuard(opts, { base, path, payload, credential, what, where }, log);
      if ('action' in sent) return sent;
      const result = rec(sent.json?.sanitizationResult);
      const state = result?.filterMatchState;
      const invocation = result?.invocationResult;
      if (state === 'MATCH_FOUND') {
        const audit = g.action === 'REGEX_AUDIT';
        log.info(
          { ...where, audit, filters: matchedFilters(result?.filterResults) },
          'prompt guard Model Armor matched',
        );
        if (audit) return { action: 'allow' };
        return customRejection(g);
      }
      if (state !== 'NO_MATCH_FOUND')
        return vendorFailure(what, 'answered without a sanitizationResult.filterMatchState', where, 0, log);
      // A filter that did not run may have missed something: fail closed rather than pass it.
      if (invocation !== undefined && invocation !== 'SUCCESS')
        return vendorFailure(
          what,
          `answered invocationResult ${typeof invocation === 'string' && /^[A-Z_]{1,32}$/.test(invocation) ? invocation : '(not a known value)'}`,
          where,
          0,
          log,
        );
      return { action: 'allow' };
    },
  };
}

/** Names of the filters whose result says MATCH_FOUND (logged instead of any content). */
function matchedFilters(results: unknown): string[] {
  const out: string[] = [];
  for (const [name, r] of Object.entries(rec(results) ?? {})) {
    if (JSON.stringify(r).includes('"MATCH_FOUND"')) out.push(name);
  }
  return out.sort();
}
