// OpenAI chat completions ⇄ Anthropic messages: the request, the buffered response, errors and the SSE
// stream. Pure apart from the clock passed in. Field mapping: docs/proxy.md "LLM backends".
import type { ChatBody } from './chat-request.js';
import { chatCompletion, openAiUsageOf } from './openai-wire.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Anthropic requires max_tokens; this is used when the client sets neither max_tokens nor max_completion_tokens. */
export const DEFAULT_MAX_TOKENS = 4096;

export interface Usage {
  /** Every input token, cached ones included (OpenAI's prompt_tokens). */
  input: number;
  output: number;
  /** Input tokens read from the vendor's prompt cache (part of `input`); unset when none. */
  cacheRead?: number;
  /** Input tokens written to the vendor's prompt cache (part of `input`); unset when none. */
  cacheWrite?: number;
}

/** `usage` with the cache counts set when they are not 0 (most answers have none). */
export function withCacheCounts(u: Usage, read: number, write: number): Usage {
  if (read > 0) u.cacheRead = read;
  if (write > 0) u.cacheWrite = write;
  return u;
}

/** OpenAI's usage object (openai-wire.ts, shared by every converting format). */
export const openAiUsage = openAiUsageOf;

/** Text of an OpenAI content value (a string, or parts of which the text ones count). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((p) => (isObject(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

function contentParts(content: unknown): unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return asArray(content).flatMap((p): Obj[] => {
    if (!isObject(p)) return [];
    if (p.type === 'text' && typeof p.text === 'string') return [{ type: 'text', text: p.text }];
    const url = isObject(p.image_url) ? p.image_url.url : undefined;
    if (p.type === 'image_url' && typeof url === 'string') {
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
      return [
        { type: 'image', source: data ? { type: 'base64', media_type: data[1], data: data[2] } : { type: 'url', url } },
      ];
    }
    return [];
  });
}

function parseArguments(v: unknown): unknown {
  if (typeof v !== 'string') return isObject(v) ? v : {};
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return {};
  }
}

/** The Anthropic messages request for an OpenAI chat request (already shaped). */
export function toAnthropicRequest(body: ChatBody): Obj {
  const system: string[] = [];
  const messages: Obj[] = [];
  for (const m of asArray(body.messages).filter(isObject)) {
    if (m.role === 'system' || m.role === 'developer') {
      system.push(textOf(m.content));
    } else if (m.role === 'tool') {
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: String(m.tool_call_id ?? ''), content: textOf(m.content) }],
      });
    } else if (m.role === 'assistant') {
      const calls = asArray(m.tool_calls)
        .filter(isObject)
        .map((c) => {
          const fn = isObject(c.function) ? c.function : {};
          return {
            type: 'tool_use',
            id: String(c.id ?? ''),
            name: String(fn.name ?? ''),
            input: parseArguments(fn.arguments),
          };
        });
      messages.push({ role: 'assistant', content: [...contentParts(m.content), ...calls] });
    } else {
      messages.push({ role: 'user', content: contentParts(m.content) });
    }
  }
  const out: Obj = {
    model: body.model,
    messages,
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS,
  };
  if (system.length > 0) out.system = system.join('\n\n');
  for (const k of ['temperature', 'top_p', 'top_k', 'stream'] as const) if (body[k] !== undefined) out[k] = body[k];
  if (body.stop !== undefined) out.stop_sequences = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (typeof body.user === 'string') out.metadata = { user_id: body.user };
  const tools = asArray(body.tools)
    .filter(isObject)
    .map((t) => {
      const fn = isObject(t.function) ? t.function : {};
      return {
        name: fn.name,
        ...(fn.description !== undefined ? { description: fn.description } : {}),
        input_schema: fn.parameters ?? { type: 'object', properties: {} },
      };
    });
  if (tools.length > 0) out.tools = tools;
  const choice = body.tool_choice;
  if (choice === 'auto') out.tool_choice = { type: 'auto' };
  else if (choice === 'required') out.tool_choice = { type: 'any' };
  else if (choice === 'none') out.tool_choice = { type: 'none' };
  else if (isObject(choice) && isObject(choice.function))
    out.tool_choice = { type: 'tool', name: choice.function.name };
  return out;
}

const FINISH: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  pause_turn: 'stop',
};

export function finishReason(stop: unknown): string | null {
  return typeof stop === 'string' ? (FINISH[stop] ?? 'stop') : null;
}

export function anthropicUsage(u: unknown): Usage {
  const o = isObject(u) ? u : {};
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  // Cached input tokens are input tokens too; OpenAI's prompt_tokens counts them.
  const read = n(o.cache_read_input_tokens),
    write = n(o.cache_creation_input_tokens);
  return withCacheCounts({ input: n(o.input_tokens) + read + write, output: n(o.output_tokens) }, read, write);
}

/** The OpenAI chat completion for a buffered Anthropic message. */
export function fromAnthropicResponse(msg: Obj, nowSeconds: number): Obj {
  const content = asArray(msg.content).filter(isObject);
  const text = content
    .filter((c) => c.type === 'text')
    .map((c) => String(c.text ?? ''))
    .join('');
  const calls = content
    .filter((c) => c.type === 'tool_use')
    .map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) },
    }));
  const head = { id: msg.id, created: nowSeconds, model: msg.model };
  return chatCompletion(head, text, calls, finishReason(msg.stop_reason), anthropicUsage(msg.usage));
}

/** An Anthropic error body (`{type: error, error: {type, message}}`) in OpenAI's error shape; others unchanged. */
export function fromAnthropicError(body: unknown): unknown {
  if (!isObject(body) || !isObject(body.error)) return body;
  return { error: { message: body.error.message ?? '', type: body.error.type ?? 'error', param: null, code: null } };
}

/**
 * Anthropic stream events → OpenAI `chat.completion.chunk` SSE text. One instance per response; feed
 * every event in order, then `end()` for the closing `[DONE]`.
 */
export class AnthropicStreamConverter {
  private id = '';
  private model = '';
  private usage: Usage = { input: 0, output: 0 };
  private readonly toolIndex = new Map<number, number>();
  private finish: string | null = null;

  constructor(
    private readonly nowSeconds: number,
    private readonly includeUsage: boolean,
  ) {}

  get tokens(): Usage {
    return this.usage;
  }

  private chunk(delta: Obj, finish: string | null = null, extra: Obj = {}): string {
    const c = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.nowSeconds,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    };
    return `data: ${JSON.stringify(c)}\n\n`;
  }

  /** The SSE text to send for one upstream event (possibly empty). */
  event(type: string, data: string): string {
    let e: Obj;
    try {
      const v: unknown = JSON.parse(data);
      e = isObject(v) ? v : {};
    } catch {
      return '';
    }
    switch (type || e.type) {
      case 'message_start': {
        const m = isObject(e.message) ? e.message : {};
        this.id = String(m.id ?? '');
        this.model = String(m.model ?? '');
        this.usage = anthropicUsage(m.usage);
        return this.chunk({ role: 'assistant', content: '' });
      }
      case 'content_block_start': {
        const b = isObject(e.content_block) ? e.content_block : {};
        if (b.type !== 'tool_use') return '';
        const index = this.toolIndex.size;
        this.toolIndex.set(Number(e.index), index);
        return this.chunk({
          tool_calls: [{ index, id: b.id, type: 'function', function: { name: b.name, arguments: '' } }],
        });
      }
      case 'content_block_delta': {
        const d = isObject(e.delta) ? e.delta : {};
        if (d.type === 'text_delta') return this.chunk({ content: String(d.text ?? '') });
        if (d.type === 'input_json_delta') {
          const index = this.toolIndex.get(Number(e.index)) ?? 0;
          return this.chunk({ tool_calls: [{ index, function: { arguments: String(d.partial_json ?? '') } }] });
        }
        return '';
      }
      case 'message_delta': {
        const d = isObject(e.delta) ? e.delta : {};
        const u = isObject(e.usage) ? e.usage : {};
        if (typeof u.output_tokens === 'number') this.usage.output = u.output_tokens;
        if (typeof u.input_tokens === 'number') this.usage = { ...anthropicUsage(u), output: this.usage.output };
        this.finish = finishReason(d.stop_reason);
        return this.finish ? this.chunk({}, this.finish) : '';
      }
      case 'message_stop':
        return this.includeUsage
          ? `data: ${JSON.stringify({ id: this.id, object: 'chat.completion.chunk', created: this.nowSeconds, model: this.model, choices: [], usage: openAiUsage(this.usage) })}\n\n`
          : '';
      case 'error':
        return `data: ${JSON.stringify(fromAnthropicError(e))}\n\n`;
      default:
        return '';
    }
  }

  end(): string {
    return 'data: [DONE]\n\n';
  }
}
