// A guardrail webhook step (seed 000 "Guardrail webhook"); the body contract the seed leaves open is
// written down in docs/guardrails.md. Headers may carry credentials, so they are never logged.
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { WebhookGuard__Output as WebhookGuard } from '../../ir/gen/gw/ir/v1/WebhookGuard.js';
import { compileCel, type CelBindings, type CompiledCel } from '../policy/cel/env.js';
import type { GuardRequestContext, GuardVerdict } from './types.js';
import type { GuardPhase } from './content.js';
import type { GuardStep } from './regex-step.js';
import { errorVerdict } from './verdicts.js';

export interface WebhookCallOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
}

/** Largest webhook answer read; a bigger one is a malformed answer (502), not a reason to buffer without end. */
export const MAX_WEBHOOK_ANSWER_BYTES = 1 << 20;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Set by the HTTP client itself; a guard expression cannot override them. */
const RESERVED = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

type Json = Record<string, unknown>;

type WebhookRequest = { path: string; method: string; headers: Record<string, string> };
type WebhookAnswer = { status: number; contentType: string; text: string } | { error: Error & { code?: string } };
type Where = { guard: string; target: string; phase: GuardPhase };

/** Throws an Error naming the header when an expression does not compile. */
export function webhookStep(w: WebhookGuard, source: string, opts: WebhookCallOptions): GuardStep {
  const headers = compileHeaders(w, source);
  const origin = `http://${w.host.includes(':') ? `[${w.host}]` : w.host}:${w.port}`;
  const run = async (body: Json, phase: GuardPhase, ctx: GuardRequestContext, log: Logger): Promise<GuardVerdict> => {
    const call = webhookRequest(headers, phase, ctx);
    const payload =
      phase === 'request'
        ? { phase, model: body.model ?? null, messages: Array.isArray(body.messages) ? body.messages : [] }
        : { phase, model: body.model ?? null, choices: Array.isArray(body.choices) ? body.choices : [] };
    const where = { guard: source, target: w.target, phase };
    const traced = ctx.traceCall?.(`guard webhook ${w.target}`);
    if (traced) Object.assign(call.headers, traced.headers);
    const answer = await post(origin, call, JSON.stringify(payload), opts);
    const verdict =
      'error' in answer ? failedCall(answer.error, where, opts.timeoutMs, log) : verdictOf(answer, body, where, log);
    // No answer, or a malformed one (failing closed), fails the span; a webhook's own rejection does not.
    const failed = 'error' in answer || (verdict.action === 'reject' && answer.status >= 200 && answer.status <= 299);
    traced?.end({ 'gw.guard.phase': phase, 'gw.guard.verdict': verdict.action }, failed);
    return verdict;
  };
  return { run };
}

/** A 2xx answer allows or modifies (or is malformed: 502); any other status rejects with the webhook's own answer. */
function verdictOf(
  answer: { status: number; contentType: string; text: string },
  body: Json,
  where: Where,
  log: Logger,
): GuardVerdict {
  if (answer.status < 200 || answer.status > 299) {
    log.info({ ...where, status: answer.status }, 'prompt guard webhook rejected content');
    return {
      action: 'reject',
      status: answer.status,
      contentType: answer.contentType || 'text/plain; charset=utf-8',
      body: answer.text,
    };
  }
  const verdict = readAnswer(answer.text, where.phase, body);
  if (typeof verdict === 'string') {
    log.error(
      { ...where, status: answer.status, problem: verdict },
      'prompt guard webhook gave a malformed answer; failing closed',
    );
    return errorVerdict(502, 'guard_bad_response', `prompt guard webhook ${where.target} (${where.guard}) ${verdict}`);
  }
  if (verdict.action === 'modify') log.info({ ...where }, 'prompt guard webhook modified content');
  return verdict;
}

/** The step's header expressions, sorted by name so pseudo-headers apply in a stable order. */
function compileHeaders(w: WebhookGuard, source: string): [string, CompiledCel][] {
  return Object.entries(w.headers)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, expr]) => {
      try {
        return [name.toLowerCase(), compileCel(expr, ['request', 'jwt', 'llmRequest'])];
      } catch (err) {
        throw new Error(`${source}.webhook.headers[${JSON.stringify(name)}] ${(err as Error).message}`);
      }
    });
}

/** Path, method and headers of one call; expressions see what the client sent, llmRequest only in the request phase (seed 000). */
function webhookRequest(headers: [string, CompiledCel][], phase: GuardPhase, ctx: GuardRequestContext): WebhookRequest {
  const bindings: CelBindings = {
    request: ctx.request,
    ...(ctx.jwt ? { jwt: ctx.jwt } : {}),
    ...(phase === 'request' ? { llmRequest: ctx.llmRequest } : {}),
  };
  const call = {
    path: `/${phase}`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' } as Record<string, string>,
  };
  for (const [name, expr] of headers) applyHeader(call, name, expr.evaluate(bindings));
  return call;
}

async function post(
  origin: string,
  call: WebhookRequest,
  body: string,
  opts: WebhookCallOptions,
): Promise<WebhookAnswer> {
  try {
    const res = await opts.dispatcher.request({
      origin,
      path: call.path,
      method: call.method as Dispatcher.HttpMethod,
      headers: call.headers,
      body,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    const contentType = String(res.headers['content-type'] ?? '');
    return { status: res.statusCode, contentType, text: await readCapped(res.body) };
  } catch (err) {
    return { error: err as Error & { code?: string } };
  }
}

/** A call that got no usable answer fails closed: 504 on a timeout, 502 otherwise. */
function failedCall(e: Error & { code?: string }, where: Where, timeoutMs: number, log: Logger): GuardVerdict {
  const webhook = `prompt guard webhook ${where.target} (${where.guard})`;
  if (e.code === 'GW_ANSWER_TOO_LARGE') {
    log.error({ ...where }, 'prompt guard webhook answered with more than 1 MiB; failing closed');
    return errorVerdict(502, 'guard_bad_response', `${webhook} gave an answer larger than 1 MiB`);
  }
  const timeout =
    e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
  log.error(
    { ...where, code: e.code ?? e.name },
    timeout ? 'prompt guard webhook timed out; failing closed' : 'prompt guard webhook is unreachable; failing closed',
  );
  return timeout
    ? errorVerdict(504, 'guard_timeout', `${webhook} did not answer within ${timeoutMs} ms`)
    : errorVerdict(502, 'guard_unavailable', `${webhook} is unreachable`);
}

function applyHeader(call: WebhookRequest, name: string, v: unknown): void {
  if (v instanceof Error) return; // seed 000: an expression that cannot be evaluated omits its header (`:path` keeps the default)
  const value =
    typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean'
        ? String(v)
        : undefined;
  if (value === undefined || !FIELD_VALUE.test(value)) return;
  if (name === ':path') {
    if (value.startsWith('/') && !/[\s#]/.test(value)) call.path = value;
  } else if (name === ':method') {
    if (TOKEN.test(value)) call.method = value.toUpperCase();
  } else if (name === ':authority') {
    if (value !== '') call.headers.host = value;
  } else if (TOKEN.test(name) && !RESERVED.has(name)) call.headers[name] = value;
}

/** The webhook's 2xx answer → a verdict, or why it is malformed (one clause, no content). */
function readAnswer(text: string, phase: GuardPhase, body: Json): GuardVerdict | string {
  if (text.trim() === '') return { action: 'allow' };
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return 'answered 2xx with a body that is not JSON';
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
    return 'answered 2xx with JSON that is not an object';
  const a = answer as Json;
  if (a.action === 'allow') return { action: 'allow' };
  if (a.action !== 'modify') return 'answered 2xx without "action": "allow" or "modify"';
  const key = phase === 'request' ? 'messages' : 'choices';
  const list = a[key];
  if (!Array.isArray(list) || !list.every((m) => typeof m === 'object' && m !== null && !Array.isArray(m)))
    return `answered "modify" without a "${key}" list of objects`;
  return { action: 'modify', body: { ...body, [key]: list } };
}

export async function readCapped(
  body: AsyncIterable<Buffer | string> & { destroy?(err?: Error): unknown },
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    const b = typeof c === 'string' ? Buffer.from(c) : c;
    size += b.length;
    if (size > MAX_WEBHOOK_ANSWER_BYTES) {
      body.destroy?.();
      throw Object.assign(new Error('answer too large'), { code: 'GW_ANSWER_TOO_LARGE' });
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
