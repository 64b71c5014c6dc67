// The LLM provider's answer on its way to the client: buffered JSON (converted, guarded, counted) or an
// SSE stream passed on event by event (converted for Anthropic, Cohere and Bedrock; held for response
// guards by held-stream.ts). Usage goes to the proxy's metrics.
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import type { GuardRequestContext, LlmGuards } from '../guard/types.js';
import { sendError, sendJson } from '../http/http-error.js';
import type { ProxyMetrics } from '../metrics.js';
import {
  AnthropicStreamConverter,
  anthropicUsage,
  fromAnthropicError,
  fromAnthropicResponse,
  withCacheCounts,
  type Usage,
} from './anthropic.js';
import { CohereStreamConverter, cohereUsage, fromCohereError, fromCohereResponse } from './cohere.js';
import { ConverseStreamConverter, converseUsage, fromConverseError, fromConverseResponse } from './bedrock.js';
import { EventStreamDecoder, type EventMessage } from './event-stream.js';
import { sendVerdict, streamOut } from './held-stream.js';
import { eachChunk, prematureClose } from './body-chunks.js';
import type { WireFormat } from './vendors.js';
import type { CatalogModel } from './model-catalog.js';

/** A non-streamed provider response larger than this is refused (502): it is buffered whole to convert and guard it. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

// Client-chosen model names become label values; past this many distinct ones they are counted as `other`.
const MAX_MODEL_LABELS = 200;

/** Where an answer's usage goes: the metrics, and the route's token rate limits. */
export interface UsageSink {
  tokens(provider: string, model: string, usage: Usage | undefined): void;
}

/** `usage` counted in the metrics, and `onTokens` told the answer's total when it has one. */
export function usageSink(usage: UsageSink, onTokens?: (tokens: number) => void): UsageSink {
  if (!onTokens) return usage;
  return {
    tokens(provider, model, u) {
      usage.tokens(provider, model, u);
      if (u) onTokens(u.input + u.output);
    },
  };
}

export class LlmUsage implements UsageSink {
  private readonly models = new Set<string>();

  constructor(private readonly metrics: ProxyMetrics) {}

  private model(m: string): string {
    if (this.models.has(m)) return m;
    if (this.models.size >= MAX_MODEL_LABELS) return 'other';
    this.models.add(m);
    return m;
  }

  request(provider: string, model: string, status: string): void {
    const m = this.model(model);
    const key = `${provider} ${m} ${status}`;
    this.metrics.llmRequests.child(key, { provider, model: m, status }).inc();
  }

  /** `price`: the model's catalog entry; with it the answer's cost is counted too (gw_llm_cost_usd_total). */
  tokens(provider: string, model: string, usage: Usage | undefined, price?: CatalogModel): void {
    if (!usage) return;
    const m = this.model(model);
    if (price) this.cost(provider, m, usage, price);
    if (usage.input > 0)
      this.metrics.llmTokens.child(`${provider} ${m} input`, { provider, model: m, kind: 'input' }).inc(usage.input);
    if (usage.output > 0)
      this.metrics.llmTokens.child(`${provider} ${m} output`, { provider, model: m, kind: 'output' }).inc(usage.output);
    if (usage.cacheRead)
      this.metrics.llmTokens
        .child(`${provider} ${m} cache_read`, { provider, model: m, kind: 'cache_read' })
        .inc(usage.cacheRead);
    if (usage.cacheWrite)
      this.metrics.llmTokens
        .child(`${provider} ${m} cache_write`, { provider, model: m, kind: 'cache_write' })
        .inc(usage.cacheWrite);
  }

  private cost(provider: string, m: string, usage: Usage, price: CatalogModel): void {
    const input = price.inputCostPerMillion;
    const output = price.outputCostPerMillion;
    if (input !== undefined && usage.input > 0)
      this.metrics.llmCost
        .child(`${provider} ${m} input`, { provider, model: m, kind: 'input' })
        .inc((usage.input * input) / 1e6);
    if (output !== undefined && usage.output > 0)
      this.metrics.llmCost
        .child(`${provider} ${m} output`, { provider, model: m, kind: 'output' })
        .inc((usage.output * output) / 1e6);
  }
}

/**
 * The whole body, or 'too_large' past `limit` bytes (the rest is discarded). Read with `data` events, not
 * `for await`: the async iterator, its promise per chunk and its end-of-stream watcher were about 9% of
 * the proxy's allocations per buffered call. Rejects as `for await` would: with the stream's error, or
 * ERR_STREAM_PREMATURE_CLOSE when it closes before its end.
 */
export function readBounded(body: Readable, limit: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    if (body.destroyed) return reject(body.errored ?? prematureClose());
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        body.destroy();
        resolve('too_large');
        return;
      }
      chunks.push(c);
    });
    // Whichever comes first settles the promise; the later ones are no-ops (`on`, not `once`: no wrapper per listener).
    body.on('end', () => resolve(Buffer.concat(chunks)));
    body.on('error', reject);
    body.on('close', () => {
      if (!body.readableEnded) reject(prematureClose());
    });
  });
}

function openAiUsage(u: unknown): Usage | undefined {
  if (typeof u !== 'object' || u === null) return undefined;
  const o = u as Record<string, unknown>;
  const details =
    typeof o.prompt_tokens_details === 'object' && o.prompt_tokens_details !== null ? o.prompt_tokens_details : {};
  const cached = (details as Record<string, unknown>).cached_tokens;
  return withCacheCounts(
    {
      input: typeof o.prompt_tokens === 'number' ? o.prompt_tokens : 0,
      output: typeof o.completion_tokens === 'number' ? o.completion_tokens : 0,
    },
    typeof cached === 'number' ? cached : 0,
    0,
  );
}

function parseJson(buf: Buffer): unknown {
  return parseText(buf.toString('utf8'));
}

function parseText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

// A `"usage"` key whose value is not null (OpenAI sends `"usage":null` on every chunk but the last when
// usage is asked for); `\u` escapes could spell the key otherwise, so such data is parsed too.
const USAGE_KEY = /"usage"\s*:\s*(?!\s|null\b)|\\u/;

/** False when a passed-through SSE event's data cannot carry a usage object: it is then not parsed at all. */
export function mayCarryUsage(data: string): boolean {
  return USAGE_KEY.test(data);
}

/** A provider's error answer, passed on with its status; Anthropic's and Bedrock's error shapes become OpenAI's. */
export function relayError(
  res: ServerResponse,
  status: number,
  format: WireFormat,
  body: Buffer,
  contentType: string,
  errorType = '',
): void {
  const json = parseJson(body);
  if (json !== undefined)
    sendJson(
      res,
      status,
      format === 'anthropic'
        ? fromAnthropicError(json)
        : format === 'bedrock'
          ? fromConverseError(json, errorType)
          : format === 'cohere'
            ? fromCohereError(json)
            : json,
    );
  else if (!res.headersSent)
    res.writeHead(status, { 'content-type': contentType || 'text/plain', 'content-length': body.length }).end(body);
}

export interface Answer {
  /** The completion id for formats whose responses carry none (Bedrock). */
  id: string;
  provider: string;
  model: string;
  format: WireFormat;
  nowSeconds: number;
  usage: UsageSink;
  guards?: LlmGuards;
  guardCtx: GuardRequestContext;
}

/** A buffered 2xx response: converted to the client's format, counted, offered to the response guard, sent. */
export async function relayBuffered(res: ServerResponse, status: number, body: Readable, a: Answer): Promise<void> {
  const buf = await readBounded(body, MAX_RESPONSE_BYTES);
  if (buf === 'too_large') {
    sendError(res, 'response_too_large', `provider ${a.provider} answered with more than ${MAX_RESPONSE_BYTES} bytes`);
    return;
  }
  const json = parseJson(buf);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    sendError(res, 'bad_gateway', `provider ${a.provider} answered with a body that is not a JSON object`);
    return;
  }
  const upstream = json as Record<string, unknown>;
  let out =
    a.format === 'anthropic'
      ? fromAnthropicResponse(upstream, a.nowSeconds)
      : a.format === 'bedrock'
        ? fromConverseResponse(upstream, a.id, a.model, a.nowSeconds)
        : a.format === 'cohere'
          ? fromCohereResponse(upstream, a.model, a.nowSeconds)
          : upstream;
  a.usage.tokens(
    a.provider,
    a.model,
    a.format === 'anthropic'
      ? anthropicUsage(upstream.usage)
      : a.format === 'bedrock'
        ? converseUsage(upstream.usage)
        : a.format === 'cohere'
          ? cohereUsage(upstream.usage)
          : openAiUsage(upstream.usage),
  );
  if (a.guards?.response) {
    const verdict = await a.guards.response(out, a.guardCtx);
    if (verdict.action === 'reject') return sendVerdict(res, verdict);
    if (verdict.action === 'modify') out = verdict.body;
  }
  sendJson(res, status, out);
}

const STREAMING = { stream: true };

/**
 * An SSE response, event by event as it arrives (held whole only for response guards, `streamOut`).
 * OpenAI-format bytes pass through unchanged and are only read for `usage`; Anthropic and Cohere events
 * are converted. Throws when the upstream breaks off; the caller then cuts the client connection (or
 * answers 502 when a held stream's status is not sent yet).
 */
export async function relayStream(
  res: ServerResponse,
  status: number,
  body: Readable,
  a: Answer,
  includeUsage: boolean,
): Promise<void> {
  const out = streamOut(res, status, a);
  const conv =
    a.format === 'anthropic'
      ? new AnthropicStreamConverter(a.nowSeconds, includeUsage)
      : a.format === 'cohere'
        ? new CohereStreamConverter(a.model, a.nowSeconds, includeUsage)
        : undefined;
  let usage: Usage | undefined;
  let pending = '';
  const parser = createParser({
    onEvent: (e) => {
      if (conv) {
        pending += conv.event(e.event ?? '', e.data);
        return;
      }
      if (e.data === '[DONE]' || !mayCarryUsage(e.data)) return;
      const u = (parseText(e.data) as { usage?: unknown } | undefined)?.usage;
      if (u) usage = openAiUsage(u);
    },
  });
  const decoder = new TextDecoder();
  try {
    await eachChunk(
      body,
      (chunk) => {
        parser.feed(decoder.decode(chunk, STREAMING));
        if (!conv) return out.write(chunk);
        if (!pending) return undefined;
        const text = pending;
        pending = '';
        return out.write(text);
      },
      () => out.stopped,
    );
    if (out.stopped) return;
    if (conv) await out.write(conv.end());
    await out.end();
  } finally {
    a.usage.tokens(a.provider, a.model, conv ? conv.tokens : usage);
  }
}

/** The SSE text for one ConverseStream message: an event, or an exception / error the stream reports. */
function converseEvent(conv: ConverseStreamConverter, m: EventMessage): string {
  const h = m.headers;
  const kind = String(h[':message-type'] ?? 'event');
  if (kind === 'error')
    return conv.event(String(h[':error-code'] ?? 'error'), { message: String(h[':error-message'] ?? '') }, true);
  const payload = parseJson(m.payload);
  if (kind === 'exception') return conv.event(String(h[':exception-type'] ?? 'error'), payload, true);
  return conv.event(String(h[':event-type'] ?? ''), payload);
}

/**
 * A Bedrock ConverseStream response (AWS event-stream frames) as OpenAI SSE chunks, message by message as
 * they arrive. Throws when the upstream breaks off or sends a corrupt frame; the caller then cuts the client connection.
 */
export async function relayEventStream(
  res: ServerResponse,
  status: number,
  body: Readable,
  a: Answer,
  includeUsage: boolean,
): Promise<void> {
  const out = streamOut(res, status, a);
  const decoder = new EventStreamDecoder();
  const conv = new ConverseStreamConverter(a.id, a.model, a.nowSeconds, includeUsage);
  try {
    for await (const chunk of body) {
      const text = decoder
        .feed(chunk as Buffer)
        .map((m) => converseEvent(conv, m))
        .join('');
      if (text) await out.write(text);
      if (out.stopped) return;
    }
    if (decoder.buffered > 0) throw new Error('the event stream ended inside a message');
    await out.write(conv.end());
    await out.end();
  } finally {
    a.usage.tokens(a.provider, a.model, conv.tokens);
  }
}
