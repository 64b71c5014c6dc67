// OpenAI chat completions ⇄ Cohere's v2 Chat API (`POST /v2/chat`): the request, the buffered response,
// errors and the SSE stream. Pure apart from the clock passed in. Field mapping: docs/llm-providers.md "Cohere".
import { DEFAULT_MAX_TOKENS, type Usage } from './anthropic.js';
import type { ChatBody } from './chat-request.js';
import { chatCompletion, chunkEvent, usageEvent, type AnswerHead } from './openai-wire.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((p) => (isObject(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

/** User content: a string stays one; text and image_url parts keep Cohere's (OpenAI-like) part shapes. */
function userContent(content: unknown): unknown {
  if (typeof content === 'string') return content;
  return asArray(content).flatMap((p): Obj[] => {
    if (!isObject(p)) return [];
    if (p.type === 'text' && typeof p.text === 'string') return [{ type: 'text', text: p.text }];
    if (p.type === 'image_url' && isObject(p.image_url)) return [{ type: 'image_url', image_url: p.image_url }];
    return [];
  });
}

function message(m: Obj): Obj {
  switch (m.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textOf(m.content) };
    case 'tool':
      return { role: 'tool', tool_call_id: String(m.tool_call_id ?? ''), content: textOf(m.content) };
    case 'assistant': {
      const calls = asArray(m.tool_calls)
        .filter(isObject)
        .map((c) => {
          const fn = isObject(c.function) ? c.function : {};
          const args = fn.arguments;
          return {
            id: String(c.id ?? ''),
            type: 'function',
            function: {
              name: String(fn.name ?? ''),
              arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
            },
          };
        });
      const text = textOf(m.content);
      return {
        role: 'assistant',
        ...(text !== '' ? { content: text } : {}),
        ...(calls.length ? { tool_calls: calls } : {}),
      };
    }
    default:
      return { role: 'user', content: userContent(m.content) };
  }
}

// OpenAI field → Cohere field, copied when set.
const SAME_MEANING: [string, string][] = [
  ['temperature', 'temperature'],
  ['top_p', 'p'],
  ['seed', 'seed'],
  ['frequency_penalty', 'frequency_penalty'],
  ['presence_penalty', 'presence_penalty'],
  ['stream', 'stream'],
];

/** The Cohere v2 chat request for an OpenAI chat request (already shaped). */
export function toCohereRequest(body: ChatBody): Obj {
  const out: Obj = {
    model: body.model,
    messages: asArray(body.messages).filter(isObject).map(message),
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS,
  };
  for (const [from, to] of SAME_MEANING) if (body[from] !== undefined) out[to] = body[from];
  if (body.stop !== undefined) out.stop_sequences = typeof body.stop === 'string' ? [body.stop] : body.stop;
  let tools = asArray(body.tools).filter((t) => isObject(t) && isObject(t.function));
  const choice = body.tool_choice;
  if (choice === 'required') out.tool_choice = 'REQUIRED';
  else if (choice === 'none') out.tool_choice = 'NONE';
  else if (isObject(choice) && isObject(choice.function)) {
    // Cohere cannot name one tool: the named one is the only tool offered, and a call is required.
    const name = choice.function.name;
    tools = tools.filter((t) => isObject(t) && isObject(t.function) && t.function.name === name);
    out.tool_choice = 'REQUIRED';
  }
  if (tools.length > 0) out.tools = tools;
  const format = isObject(body.response_format) ? body.response_format : undefined;
  if (format?.type === 'json_object') out.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema' && isObject(format.json_schema))
    out.response_format = { type: 'json_object', json_schema: format.json_schema.schema ?? {} };
  return out;
}

const FINISH: Record<string, string> = {
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop',
  MAX_TOKENS: 'length',
  TOOL_CALL: 'tool_calls',
  ERROR_TOXIC: 'content_filter',
};

function finishReason(v: unknown): string | null {
  return typeof v === 'string' ? (FINISH[v] ?? 'stop') : null;
}

/** Tokens of a Cohere `usage`: `tokens` (what the model saw), else `billed_units`. */
export function cohereUsage(u: unknown): Usage {
  const o = isObject(u) ? u : {};
  const t = isObject(o.tokens) ? o.tokens : isObject(o.billed_units) ? o.billed_units : {};
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  return { input: n(t.input_tokens), output: n(t.output_tokens) };
}

function toolCallsOf(v: unknown): Obj[] {
  return asArray(v)
    .filter(isObject)
    .map((c) => {
      const fn = isObject(c.function) ? c.function : {};
      return { id: c.id, type: 'function', function: { name: fn.name, arguments: String(fn.arguments ?? '') } };
    });
}

/** The OpenAI chat completion for a buffered Cohere answer; Cohere names no model, so `model` is the one called. */
export function fromCohereResponse(r: Obj, model: string, nowSeconds: number): Obj {
  const m = isObject(r.message) ? r.message : {};
  const text = asArray(m.content)
    .filter(isObject)
    .filter((c) => c.type === 'text')
    .map((c) => String(c.text ?? ''))
    .join('');
  const head = { id: r.id, created: nowSeconds, model };
  return chatCompletion(head, text, toolCallsOf(m.tool_calls), finishReason(r.finish_reason), cohereUsage(r.usage));
}

/** A Cohere error body (`{message}`) in OpenAI's error shape; others unchanged. */
export function fromCohereError(body: unknown): unknown {
  if (!isObject(body) || typeof body.message !== 'string' || isObject(body.error)) return body;
  return { error: { message: body.message, type: 'error', param: null, code: null } };
}

/**
 * Cohere v2 stream events (`message-start`, `content-delta`, `tool-call-start`, `tool-call-delta`,
 * `message-end`, …) → OpenAI `chat.completion.chunk` SSE text. One instance per response; feed every event
 * in order, then `end()` for the closing `[DONE]`.
 */
export class CohereStreamConverter {
  private id = '';
  private readonly usage: Usage = { input: 0, output: 0 };
  private readonly toolIndex = new Map<number, number>();

  constructor(
    private readonly model: string,
    private readonly nowSeconds: number,
    private readonly includeUsage: boolean,
  ) {}

  get tokens(): Usage {
    return this.usage;
  }

  private get head(): AnswerHead {
    return { id: this.id, created: this.nowSeconds, model: this.model };
  }

  private chunk(delta: Obj, finish: string | null = null): string {
    return chunkEvent(this.head, delta, finish);
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
    const delta = isObject(e.delta) ? e.delta : {};
    const msg = isObject(delta.message) ? delta.message : {};
    switch (typeof e.type === 'string' ? e.type : type) {
      case 'message-start':
        this.id = String(e.id ?? '');
        return this.chunk({ role: 'assistant', content: '' });
      case 'content-delta': {
        const c = isObject(msg.content) ? msg.content : {};
        return typeof c.text === 'string' ? this.chunk({ content: c.text }) : '';
      }
      case 'tool-call-start': {
        const call = isObject(msg.tool_calls) ? msg.tool_calls : {};
        const fn = isObject(call.function) ? call.function : {};
        const index = this.toolIndex.size;
        this.toolIndex.set(Number(e.index), index);
        return this.chunk({
          tool_calls: [
            {
              index,
              id: call.id,
              type: 'function',
              function: { name: fn.name, arguments: String(fn.arguments ?? '') },
            },
          ],
        });
      }
      case 'tool-call-delta': {
        const call = isObject(msg.tool_calls) ? msg.tool_calls : {};
        const fn = isObject(call.function) ? call.function : {};
        const index = this.toolIndex.get(Number(e.index)) ?? 0;
        return this.chunk({ tool_calls: [{ index, function: { arguments: String(fn.arguments ?? '') } }] });
      }
      case 'message-end': {
        const u = cohereUsage(delta.usage);
        this.usage.input = u.input;
        this.usage.output = u.output;
        const done = this.chunk({}, finishReason(delta.finish_reason) ?? 'stop');
        return this.includeUsage ? done + usageEvent(this.head, u) : done;
      }
      default:
        return '';
    }
  }

  end(): string {
    return 'data: [DONE]\n\n';
  }
}
