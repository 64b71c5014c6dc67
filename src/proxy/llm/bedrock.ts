// OpenAI chat completions ⇄ Amazon Bedrock Converse: the request, the buffered response, errors and the
// ConverseStream events (already decoded from the event-stream framing). Pure apart from the id and clock
// passed in. Field mapping: docs/llm-providers.md.
import type { ChatBody } from './chat-request.js';
import { openAiUsage, withCacheCounts, type Usage } from './anthropic.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export interface Guardrail {
  identifier: string;
  version: string;
}

const IMAGE_FORMATS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((p) => (isObject(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('');
}

/** Converse content blocks of an OpenAI content value; images only as data URLs (Bedrock fetches no URLs). */
function blocks(content: unknown): Obj[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return asArray(content).flatMap((p): Obj[] => {
    if (!isObject(p)) return [];
    if (p.type === 'text' && typeof p.text === 'string' && p.text !== '') return [{ text: p.text }];
    const url = isObject(p.image_url) ? p.image_url.url : undefined;
    const data = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
    const format = data ? IMAGE_FORMATS[String(data[1]).toLowerCase()] : undefined;
    return p.type === 'image_url' && data && format ? [{ image: { format, source: { bytes: data[2] } } }] : [];
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

/** The Converse request body for an OpenAI chat request (already shaped); the model goes in the path. */
export function toConverseRequest(body: ChatBody, guardrail?: Guardrail): Obj {
  const system: Obj[] = [];
  const messages: { role: string; content: Obj[] }[] = [];
  // Converse wants alternating roles: consecutive messages of one role (tool results after each other) merge.
  const push = (role: string, content: Obj[]): void => {
    const last = messages[messages.length - 1];
    if (last?.role === role) last.content.push(...content);
    else messages.push({ role, content });
  };
  for (const m of asArray(body.messages).filter(isObject)) {
    if (m.role === 'system' || m.role === 'developer') {
      const text = textOf(m.content);
      if (text) system.push({ text });
    } else if (m.role === 'tool') {
      push('user', [
        { toolResult: { toolUseId: String(m.tool_call_id ?? ''), content: [{ text: textOf(m.content) }] } },
      ]);
    } else if (m.role === 'assistant') {
      const calls = asArray(m.tool_calls)
        .filter(isObject)
        .map((c) => {
          const fn = isObject(c.function) ? c.function : {};
          return {
            toolUse: {
              toolUseId: String(c.id ?? ''),
              name: String(fn.name ?? ''),
              input: parseArguments(fn.arguments),
            },
          };
        });
      push('assistant', [...blocks(m.content), ...calls]);
    } else {
      push('user', blocks(m.content));
    }
  }
  const out: Obj = { messages };
  if (system.length > 0) out.system = system;
  const inference: Obj = {};
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined) inference.maxTokens = maxTokens;
  if (body.temperature !== undefined) inference.temperature = body.temperature;
  if (body.top_p !== undefined) inference.topP = body.top_p;
  if (body.stop !== undefined) inference.stopSequences = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (Object.keys(inference).length > 0) out.inferenceConfig = inference;
  const tools = asArray(body.tools)
    .filter(isObject)
    .map((t) => {
      const fn = isObject(t.function) ? t.function : {};
      return {
        toolSpec: {
          name: fn.name,
          ...(fn.description !== undefined ? { description: fn.description } : {}),
          inputSchema: { json: fn.parameters ?? { type: 'object', properties: {} } },
        },
      };
    });
  const choice = body.tool_choice;
  // Converse has no "none": the tools are left out instead.
  if (tools.length > 0 && choice !== 'none') {
    const toolConfig: Obj = { tools };
    if (choice === 'auto') toolConfig.toolChoice = { auto: {} };
    else if (choice === 'required') toolConfig.toolChoice = { any: {} };
    else if (isObject(choice) && isObject(choice.function))
      toolConfig.toolChoice = { tool: { name: choice.function.name } };
    out.toolConfig = toolConfig;
  }
  if (guardrail)
    out.guardrailConfig = { guardrailIdentifier: guardrail.identifier, guardrailVersion: guardrail.version };
  return out;
}

const FINISH: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

function finishReason(stop: unknown): string | null {
  return typeof stop === 'string' ? (FINISH[stop] ?? 'stop') : null;
}

export function converseUsage(u: unknown): Usage {
  const o = isObject(u) ? u : {};
  const n = (v: unknown): number => (typeof v === 'number' ? v : 0);
  // Cached input tokens are input tokens too; OpenAI's prompt_tokens counts them.
  const read = n(o.cacheReadInputTokens),
    write = n(o.cacheWriteInputTokens);
  return withCacheCounts({ input: n(o.inputTokens) + read + write, output: n(o.outputTokens) }, read, write);
}

/** The OpenAI chat completion for a buffered Converse response (which carries no id or model: they are given). */
export function fromConverseResponse(resp: Obj, id: string, model: string, nowSeconds: number): Obj {
  const message = isObject(resp.output) && isObject(resp.output.message) ? resp.output.message : {};
  const content = asArray(message.content).filter(isObject);
  const text = content
    .filter((c) => typeof c.text === 'string')
    .map((c) => String(c.text))
    .join('');
  const calls = content
    .filter((c) => isObject(c.toolUse))
    .map((c) => {
      const t = c.toolUse as Obj;
      return {
        id: t.toolUseId,
        type: 'function',
        function: { name: t.name, arguments: JSON.stringify(t.input ?? {}) },
      };
    });
  return {
    id,
    object: 'chat.completion',
    created: nowSeconds,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && calls.length > 0 ? null : text,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: finishReason(resp.stopReason),
      },
    ],
    usage: openAiUsage(converseUsage(resp.usage)),
  };
}

/** A Bedrock error body (`{message}`, type in `__type` or the x-amzn-errortype header) in OpenAI's error shape. */
export function fromConverseError(body: unknown, errorType = ''): unknown {
  if (!isObject(body)) return body;
  const message = body.message ?? body.Message;
  if (typeof message !== 'string') return body;
  const type = (errorType || String(body.__type ?? '')).split(':')[0]?.split('#').pop() || 'error';
  return { error: { message, type, param: null, code: null } };
}

/**
 * ConverseStream events → OpenAI `chat.completion.chunk` SSE text. One instance per response; feed every
 * decoded event in order, then `end()` for the closing `[DONE]`.
 */
export class ConverseStreamConverter {
  private usage: Usage = { input: 0, output: 0 };
  private readonly toolIndex = new Map<number, number>();

  constructor(
    private readonly id: string,
    private readonly model: string,
    private readonly nowSeconds: number,
    private readonly includeUsage: boolean,
  ) {}

  get tokens(): Usage {
    return this.usage;
  }

  private chunk(delta: Obj, finish: string | null = null): string {
    const c = {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.nowSeconds,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    };
    return `data: ${JSON.stringify(c)}\n\n`;
  }

  /** The SSE text for one event (`:event-type`, or `:exception-type` for an exception), possibly empty. */
  event(type: string, payload: unknown, exception = false): string {
    const e = isObject(payload) ? payload : {};
    if (exception) return `data: ${JSON.stringify(fromConverseError(e, type))}\n\n`;
    switch (type) {
      case 'messageStart':
        return this.chunk({ role: 'assistant', content: '' });
      case 'contentBlockStart': {
        const tool = isObject(e.start) && isObject(e.start.toolUse) ? e.start.toolUse : undefined;
        if (!tool) return '';
        const index = this.toolIndex.size;
        this.toolIndex.set(Number(e.contentBlockIndex), index);
        return this.chunk({
          tool_calls: [{ index, id: tool.toolUseId, type: 'function', function: { name: tool.name, arguments: '' } }],
        });
      }
      case 'contentBlockDelta': {
        const d = isObject(e.delta) ? e.delta : {};
        if (typeof d.text === 'string') return this.chunk({ content: d.text });
        if (isObject(d.toolUse)) {
          const index = this.toolIndex.get(Number(e.contentBlockIndex)) ?? 0;
          return this.chunk({ tool_calls: [{ index, function: { arguments: String(d.toolUse.input ?? '') } }] });
        }
        return '';
      }
      case 'messageStop':
        return this.chunk({}, finishReason(e.stopReason) ?? 'stop');
      case 'metadata': {
        const u = converseUsage(e.usage);
        this.usage = u;
        return this.includeUsage
          ? `data: ${JSON.stringify({ id: this.id, object: 'chat.completion.chunk', created: this.nowSeconds, model: this.model, choices: [], usage: openAiUsage(u) })}\n\n`
          : '';
      }
      default:
        return '';
    }
  }

  end(): string {
    return 'data: [DONE]\n\n';
  }
}
