// Inline moderation of an OpenAI provider (GwBackend `openai.moderation`, seed 001): the prompt (input) and
// the answer (output) are sent to the provider's own `/moderations` endpoint, with the provider's credential
// and TLS, before they pass. Block refuses flagged content; Score lets it pass and reports the scores.
// Moderation is a security setting: when it cannot be asked, Block fails closed.
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { LlmGuards } from '../guard/types.js';
import type { ProxyMetrics } from '../metrics.js';
import type { LlmProvider, LlmRoute } from './llm-route.js';
import type { OpenAiModeration__Output as OpenAiModeration } from '../../ir/gen/gw/ir/v1/OpenAiModeration.js';
import { errorBodyFor } from '../http/http-error.js';
import { ProxyError } from '../proxy-error.js';
import { readBounded } from './llm-response.js';
import type { CallSignal } from '../http/call-signal.js';

export type ModerationPhase = 'input' | 'output';

/** What the moderation endpoint said about one piece of content, folded over its results. */
export interface ModerationReport {
  flagged: boolean;
  /** Categories any result flagged, sorted. */
  categories: string[];
  /** The highest score among all categories and results, and its category (empty when none). */
  top: { category: string; score: number };
}

/** How to reach the provider's moderation endpoint: everything but the body. */
export interface ModerationCall {
  dispatcher: Dispatcher;
  origin: string;
  path: string;
  /** Credential and fixed headers of the provider; never logged. */
  headers: Record<string, string>;
  signal: CallSignal;
}

/** Largest moderation answer read; OpenAI's are a few kB per input. */
const MAX_ANSWER_BYTES = 1 << 20;

export function moderationMode(
  m: OpenAiModeration | null | undefined,
  phase: ModerationPhase,
): 'score' | 'block' | undefined {
  const mode = m?.[phase];
  return mode === 'MODERATION_BLOCK' ? 'block' : mode === 'MODERATION_SCORE' ? 'score' : undefined;
}

/** The texts of a chat-completions request (input) or response (output) that are moderated; empty strings are left out. */
export function moderatedTexts(body: Record<string, unknown>, phase: ModerationPhase): string[] {
  const items = phase === 'input' ? arr(body.messages) : arr(body.choices).map((c) => rec(c)?.message);
  return items.flatMap((m) => textOf(rec(m)?.content)).filter((t) => t.trim() !== '');
}

function textOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  // Content parts (`[{type: 'text', text}]`): only text parts are moderated here.
  return arr(content).flatMap((p) => {
    const part = rec(p);
    return part?.type === 'text' && typeof part.text === 'string' ? [part.text] : [];
  });
}

/**
 * Asks the moderation endpoint about `texts`. Throws a ProxyError (`moderation_unavailable`, 502) when it
 * cannot be reached or answers with anything but a moderation result; the caller decides whether that blocks.
 */
export async function moderate(call: ModerationCall, model: string, texts: string[]): Promise<ModerationReport> {
  if (texts.length === 0) return { flagged: false, categories: [], top: { category: '', score: 0 } };
  const payload = JSON.stringify({ model, input: texts });
  let status: number, text: string;
  try {
    const res = await call.dispatcher.request({
      origin: call.origin,
      path: call.path,
      method: 'POST',
      headers: {
        ...call.headers,
        'content-type': 'application/json',
        accept: 'application/json',
        'content-length': String(Buffer.byteLength(payload)),
      },
      body: payload,
      signal: call.signal,
    });
    status = res.statusCode;
    const buf = await readBounded(res.body, MAX_ANSWER_BYTES);
    text = buf === 'too_large' ? '' : buf.toString('utf8');
  } catch (err) {
    if (call.signal.aborted) throw err;
    throw new ProxyError('moderation_unavailable', `the moderation endpoint ${call.origin} could not be reached`);
  }
  if (status < 200 || status > 299)
    throw new ProxyError('moderation_unavailable', `the moderation endpoint ${call.origin} answered ${status}`);
  const report = readReport(text);
  if (!report)
    throw new ProxyError('moderation_unavailable', `the moderation endpoint ${call.origin} gave no moderation results`);
  return report;
}

/** `{results: [{flagged, categories, category_scores}]}` → a report; undefined when the shape is wrong. */
export function readReport(text: string): ModerationReport | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const results = rec(json)?.results;
  if (!Array.isArray(results) || results.length === 0) return undefined;
  const categories = new Set<string>();
  const top = { category: '', score: 0 };
  let flagged = false;
  for (const r of results) {
    const result = rec(r);
    if (!result || typeof result.flagged !== 'boolean') return undefined;
    flagged ||= result.flagged;
    for (const [c, on] of Object.entries(rec(result.categories) ?? {})) if (on === true) categories.add(c);
    for (const [c, s] of Object.entries(rec(result.category_scores) ?? {}))
      if (typeof s === 'number' && s > top.score) Object.assign(top, { category: c, score: s });
  }
  return { flagged, categories: [...categories].sort(), top };
}

/** The `x-gw-moderation-<phase>` header value: `flagged=true; categories=a,b; top=violence:0.9132`. */
export function moderationHeader(r: ModerationReport): string {
  const parts = [`flagged=${r.flagged}`];
  if (r.categories.length > 0) parts.push(`categories=${r.categories.join(',')}`);
  if (r.top.category) parts.push(`top=${r.top.category}:${r.top.score.toFixed(4)}`);
  return parts.join('; ');
}

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const rec = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/**
 * The LLM forwarder's side of inline moderation: when to ask, what to answer, the header, log line and
 * metric. One per forwarder; `dispatcherOf` is the forwarder's connection pool for a provider.
 */
export class ProviderModeration {
  constructor(
    private readonly log: Logger,
    private readonly metrics: ProxyMetrics,
    private readonly dispatcherOf: (route: LlmRoute, p: LlmProvider) => Dispatcher,
    /** Most bytes of a streamed answer held for moderation (GUARDRAIL_STREAM_BUFFER_BYTES, as for prompt guards). */
    private readonly streamBufferBytes: number,
  ) {}

  /** The prompt's check. The error to answer with, or undefined to go on. */
  input(
    res: ServerResponse,
    route: LlmRoute,
    p: LlmProvider,
    body: Record<string, unknown>,
    credential: Record<string, string>,
    signal: CallSignal,
  ): Promise<ProxyError | undefined> {
    return this.check(res, route, p, 'input', body, credential, signal);
  }

  /**
   * The prompt guards' response step, then the provider's answer moderation. A streamed answer is held
   * (held-stream.ts, at most `streamBufferBytes`), assembled once and moderated whole before any of it is
   * sent; the prompt guards' response step sees it only when they hold streams themselves (Buffered).
   */
  answerGuards(
    res: ServerResponse,
    route: LlmRoute,
    p: LlmProvider,
    call: { credential: Record<string, string>; signal: CallSignal; stream: boolean },
  ): LlmGuards | undefined {
    const inner = p.guards ?? route.guards;
    if (!moderationMode(p.moderation, 'output')) return inner;
    const guard = call.stream && !inner?.heldStreams ? undefined : inner?.response?.bind(inner);
    return {
      ...inner,
      heldStreams: inner?.heldStreams ?? { maxBytes: this.streamBufferBytes, by: 'openai.moderation.policy.output' },
      response: async (body, ctx) => {
        const verdict = guard ? await guard(body, ctx) : ({ action: 'allow' } as const);
        if (verdict.action === 'reject') return verdict;
        const checked = verdict.action === 'modify' ? verdict.body : body;
        const refused = await this.check(res, route, p, 'output', checked, call.credential, call.signal);
        if (!refused) return verdict;
        const text = JSON.stringify(errorBodyFor(res, refused.code, refused.message));
        return { action: 'reject', status: refused.status, contentType: 'application/json', body: text };
      },
    };
  }

  /** One check; sets `x-gw-moderation-<phase>` and counts it. The error to answer with, or undefined. */
  private async check(
    res: ServerResponse,
    route: LlmRoute,
    p: LlmProvider,
    phase: ModerationPhase,
    body: Record<string, unknown>,
    credential: Record<string, string>,
    signal: CallSignal,
  ): Promise<ProxyError | undefined> {
    const mode = moderationMode(p.moderation, phase);
    if (!mode || !p.moderation) return undefined;
    const e = p.endpoint;
    const count = (result: string): void =>
      this.metrics.llmModeration.labels(p.metricsProvider ?? p.name, phase, result).inc();
    const where = { route: route.name, provider: p.name, phase, mode };
    let report: ModerationReport;
    try {
      report = await moderate(
        {
          dispatcher: this.dispatcherOf(route, p),
          origin: `${e.tls ? 'https' : 'http'}://${e.host}:${e.port}`,
          path: e.moderationPath ?? '/v1/moderations',
          headers: credential,
          signal,
        },
        p.moderation.model,
        moderatedTexts(body, phase),
      );
    } catch (err) {
      if (!(err instanceof ProxyError)) throw err;
      count('error');
      this.log.warn({ ...where, reason: err.message }, 'LLM moderation endpoint failed');
      if (mode === 'block') return err;
      if (!res.headersSent) res.setHeader(`x-gw-moderation-${phase}`, 'error');
      return undefined;
    }
    count(report.flagged ? 'flagged' : 'passed');
    this.log.info(
      { ...where, flagged: report.flagged, categories: report.categories, top: report.top },
      'LLM moderation',
    );
    if (!res.headersSent) res.setHeader(`x-gw-moderation-${phase}`, moderationHeader(report));
    if (mode === 'block' && report.flagged)
      return new ProxyError(
        'content_flagged',
        `provider ${p.name}'s moderation flagged the ${phase === 'input' ? 'prompt' : 'answer'} (${report.categories.join(', ') || 'flagged'})`,
      );
    return undefined;
  }
}
