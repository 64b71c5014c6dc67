// The `bedrockGuardrails` prompt guard (seed 001 "Bedrock-style guardrails"): Amazon Bedrock's ApplyGuardrail
// (`POST /guardrail/{identifier}/version/{version}/apply`, SigV4 service `bedrock`, or a Bedrock API key)
// checks the texts of the prompt (source INPUT) or of the answer (source OUTPUT). GUARDRAIL_INTERVENED with
// a BLOCKED assessment rejects (Reject) or is logged (Audit); one that only ANONYMIZED writes the masked
// texts back. Anything else fails closed.
import type { Logger } from 'pino';
import type { BedrockGuardrailsGuard__Output as BedrockGuardrailsGuard } from '../../ir/gen/gw/ir/v1/BedrockGuardrailsGuard.js';
import { uriEncode } from '../llm/sigv4.js';
import type { GuardPhase } from './content.js';
import type { GuardStep } from './regex-step.js';
import type { GuardVerdict } from './types.js';
import { customRejection } from './verdicts.js';
import { callCloudGuard, guardTexts, rec, replaceTexts, vendorFailure, type CloudGuardOptions } from './vendor-call.js';

type Json = Record<string, unknown>;

/** Throws when the step has no credential (the translator always sets one, so only a foreign IR gets here). */
export function bedrockStep(g: BedrockGuardrailsGuard, source: string, opts: CloudGuardOptions): GuardStep {
  const credential = g.credential;
  if (credential?.kind !== 'aws' && credential?.kind !== 'key')
    throw new Error(`${source}.bedrockGuardrails has no AWS credential or API key`);
  const base = new URL(opts.endpoint ?? `https://bedrock-runtime.${g.region}.amazonaws.com`);
  const path = `/guardrail/${uriEncode(g.identifier)}/version/${uriEncode(g.version)}/apply`;
  const what = `prompt guard ${source} (Bedrock guardrail ${g.identifier} version ${g.version})`;
  return {
    async run(body, phase, _ctx, log) {
      const texts = guardTexts(body, phase);
      if (texts.length === 0) return { action: 'allow' };
      const where = { guard: source, phase, guardrail: g.identifier };
      const payload = JSON.stringify({
        source: phase === 'request' ? 'INPUT' : 'OUTPUT',
        content: texts.map((text) => ({ text: { text } })),
      });
      const sent = await callCloudGuard(
        opts,
        {
          base,
          path,
          payload,
          credential,
          keyLocation: g.keyLocation,
          signing: { region: g.region, service: 'bedrock' },
          what,
          where,
        },
        log,
      );
      if ('action' in sent) return sent;
      return verdictOf(g, sent.json, body, phase, texts.length, what, where, log);
    },
  };
}

function verdictOf(
  g: BedrockGuardrailsGuard,
  answer: Json | undefined,
  body: Json,
  phase: GuardPhase,
  sent: number,
  what: string,
  where: Record<string, string>,
  log: Logger,
): GuardVerdict {
  const action = answer?.action;
  if (action === 'NONE') return { action: 'allow' };
  if (action !== 'GUARDRAIL_INTERVENED')
    return vendorFailure(what, 'answered without "action" NONE or GUARDRAIL_INTERVENED', where, 0, log);
  const actions = assessmentActions(answer?.assessments);
  const audit = g.action === 'REGEX_AUDIT';
  const outputs = Array.isArray(answer?.outputs) ? answer.outputs.map((o) => rec(o)?.text) : [];
  // Masking needs one output per text sent; an intervention that blocked, or that cannot be placed, rejects.
  const masked =
    !actions.has('BLOCKED') &&
    actions.has('ANONYMIZED') &&
    outputs.length === sent &&
    outputs.every((t) => typeof t === 'string');
  log.info(
    { ...where, audit, masked, actions: [...actions].sort(), reason: answer?.actionReason },
    'prompt guard Bedrock guardrail intervened',
  );
  if (audit) return { action: 'allow' };
  if (masked) {
    const changed = replaceTexts(body, phase, outputs as string[]);
    return changed ? { action: 'modify', body: changed } : { action: 'allow' };
  }
  return customRejection(g);
}

/** Every `action` named in the assessments' policy findings (`BLOCKED`, `ANONYMIZED`, `NONE`). */
function assessmentActions(assessments: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8) return;
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (rec(v))
      for (const [k, x] of Object.entries(v as Json)) {
        if (k === 'action' && typeof x === 'string') out.add(x);
        else walk(x, depth + 1);
      }
  };
  walk(assessments, 0);
  return out;
}
