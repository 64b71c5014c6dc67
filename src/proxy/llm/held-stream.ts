// A streamed answer on its way to the client (OpenAI `chat.completion.chunk` SSE, whatever the provider's
// own format: the converters run first). Unguarded, it is written event by event. With response guards
// and `promptGuard.streaming: Buffered`, or a provider's own output moderation (`openai.moderation`,
// moderation.ts), it is held whole (bounded), assembled into the `chat.completion`
// the guards read, and released only after them: the original events (allow), a rewrite carrying the
// modified answer (modify), or the guard's own error answer in place of the stream (reject). The status
// line waits with the events, so a rejection is a plain HTTP error the SDKs raise with its status.
import type { ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { GuardRequestContext, GuardVerdict, LlmGuards } from '../guard/types.js';
import { sendError } from '../http/http-error.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a relayed stream's client-format SSE text goes. */
export interface StreamOut {
  /** Undefined when the chunk was taken at once (no promise per event); a promise when the client is behind. */
  write(chunk: string | Buffer): Promise<void> | undefined;
  end(): Promise<void>;
  /** The client left, or the held stream outgrew its bound (already answered): stop reading the provider. */
  readonly stopped: boolean;
}

/** What a stream relay knows of the answer it is relaying. */
export interface StreamAnswer {
  provider: string;
  guards?: LlmGuards;
  guardCtx: GuardRequestContext;
}

/** The guard's rejection, sent in place of the answer (the project's JSON error shape, or a webhook's own). */
export function sendVerdict(res: ServerResponse, v: { status: number; contentType: string; body: string }): void {
  res.writeHead(v.status, { 'content-type': v.contentType, 'content-length': Buffer.byteLength(v.body) }).end(v.body);
}

function write(res: ServerResponse, chunk: string | Buffer): Promise<void> | undefined {
  if (res.write(chunk)) return undefined;
  // Both listeners go once either fires: a long stream's waits must not pile up `close` listeners on `res`.
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function sseHead(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

/** Held when the answer's response guards ask for streams (`heldStreams`), else written as it arrives. */
export function streamOut(res: ServerResponse, status: number, a: StreamAnswer): StreamOut {
  const response = a.guards?.response;
  const held = a.guards?.heldStreams;
  if (response && held) return new HeldStream(res, status, a, held, response.bind(a.guards));
  return new DirectStream(res, status);
}

/** Written event by event as it arrives. */
class DirectStream implements StreamOut {
  constructor(
    private readonly res: ServerResponse,
    status: number,
  ) {
    sseHead(res, status);
    res.flushHeaders();
  }

  get stopped(): boolean {
    return this.res.destroyed;
  }

  write(chunk: string | Buffer): Promise<void> | undefined {
    return write(this.res, chunk);
  }

  end(): Promise<void> {
    this.res.end();
    return Promise.resolve();
  }
}

class HeldStream implements StreamOut {
  private readonly parts: Buffer[] = [];
  private size = 0;
  private over = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly status: number,
    private readonly a: StreamAnswer,
    private readonly held: { maxBytes: number; by?: string },
    private readonly check: (body: Obj, ctx: GuardRequestContext) => Promise<GuardVerdict>,
  ) {}

  get stopped(): boolean {
    return this.over || this.res.destroyed;
  }

  write(chunk: string | Buffer): undefined {
    if (this.over) return;
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.size += b.length;
    if (this.size > this.held.maxBytes) {
      // Fail closed: nothing of an answer the guards could not see reaches the client.
      this.over = true;
      this.parts.length = 0;
      sendError(
        this.res,
        'response_too_large',
        `provider ${this.a.provider} streamed more than ${this.held.maxBytes} bytes, the most held to check a streamed answer (${this.held.by ?? 'promptGuard.streaming Buffered'})`,
      );
    } else this.parts.push(b);
  }

  async end(): Promise<void> {
    if (this.stopped) return;
    const text = Buffer.concat(this.parts).toString('utf8');
    this.parts.length = 0;
    const held = assembleStream(text);
    const verdict = await this.check(held.completion, this.a.guardCtx);
    if (this.res.destroyed) return;
    if (verdict.action === 'reject') return sendVerdict(this.res, verdict);
    sseHead(this.res, this.status);
    this.res.end(verdict.action === 'modify' ? rewrittenStream(verdict.body, held) : text);
  }
}

/** A held stream read back: the answer as one `chat.completion`, and what a rewrite repeats verbatim. */
export interface HeldAnswer {
  completion: Obj;
  /** The `id`, `created`, `model` (and `system_fingerprint`) every chunk repeats. */
  head: Obj;
  /** The stream's usage, when it reported one (`stream_options.include_usage`). */
  usage?: unknown;
  /** `data:` payloads carrying an `error` (a provider failing mid-stream), in order. */
  errors: string[];
  /** The stream ended with `data: [DONE]`. */
  done: boolean;
}

interface ChoiceSoFar {
  role: string;
  content?: string;
  refusal?: string;
  calls: Map<number, { id?: unknown; type?: unknown; name: string; args: string }>;
  finish: unknown;
}

/** Pure: the chunks of an OpenAI chat-completions stream put together, as the SDKs' stream helpers do. */
export function assembleStream(text: string): HeldAnswer {
  const out: HeldAnswer = { completion: {}, head: {}, errors: [], done: false };
  const choices = new Map<number, ChoiceSoFar>();
  const parser = createParser({
    onEvent: (e) => {
      if (e.data === '[DONE]') return void (out.done = true);
      let chunk: unknown;
      try {
        chunk = JSON.parse(e.data);
      } catch {
        return;
      }
      if (!isObj(chunk)) return;
      if (chunk.error !== undefined) out.errors.push(e.data);
      if (out.head.id === undefined && chunk.id !== undefined)
        for (const k of ['id', 'created', 'model', 'system_fingerprint'])
          if (chunk[k] !== undefined) out.head[k] = chunk[k];
      if (isObj(chunk.usage)) out.usage = chunk.usage;
      if (Array.isArray(chunk.choices)) for (const c of chunk.choices) if (isObj(c)) addChoice(choices, c);
    },
  });
  parser.feed(text);
  out.completion = {
    ...out.head,
    object: 'chat.completion',
    choices: [...choices.entries()].sort(([a], [b]) => a - b).map(([index, c]) => completedChoice(index, c)),
    ...(out.usage !== undefined ? { usage: out.usage } : {}),
  };
  return out;
}

function addChoice(choices: Map<number, ChoiceSoFar>, c: Obj): void {
  const index = typeof c.index === 'number' ? c.index : 0;
  let so = choices.get(index);
  if (!so) choices.set(index, (so = { role: 'assistant', calls: new Map(), finish: null }));
  if (c.finish_reason !== null && c.finish_reason !== undefined) so.finish = c.finish_reason;
  const d = c.delta;
  if (!isObj(d)) return;
  if (typeof d.role === 'string') so.role = d.role;
  if (typeof d.content === 'string') so.content = (so.content ?? '') + d.content;
  if (typeof d.refusal === 'string') so.refusal = (so.refusal ?? '') + d.refusal;
  if (!Array.isArray(d.tool_calls)) return;
  for (const t of d.tool_calls) {
    if (!isObj(t)) continue;
    const at = typeof t.index === 'number' ? t.index : so.calls.size;
    let call = so.calls.get(at);
    if (!call) so.calls.set(at, (call = { name: '', args: '' }));
    if (t.id !== undefined) call.id = t.id;
    if (t.type !== undefined) call.type = t.type;
    const f = isObj(t.function) ? t.function : {};
    if (typeof f.name === 'string') call.name += f.name;
    if (typeof f.arguments === 'string') call.args += f.arguments;
  }
}

function completedChoice(index: number, c: ChoiceSoFar): Obj {
  const calls = [...c.calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, t]) => ({ id: t.id, type: t.type ?? 'function', function: { name: t.name, arguments: t.args } }));
  return {
    index,
    message: {
      role: c.role,
      content: c.content ?? null,
      ...(c.refusal !== undefined ? { refusal: c.refusal } : {}),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    },
    finish_reason: c.finish,
  };
}

/**
 * Pure: the stream a modified answer is released as: per choice one chunk with its whole message and one
 * with its finish reason, then the original's error payloads and usage, then `[DONE]` if the original had it.
 */
export function rewrittenStream(body: Obj, held: HeldAnswer): string {
  const event = (data: unknown): string => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
  const chunk = (choices: unknown[], extra: Obj = {}): string =>
    event({ ...held.head, object: 'chat.completion.chunk', choices, ...extra });
  let out = '';
  const list = Array.isArray(body.choices) ? body.choices.filter(isObj) : [];
  list.forEach((c, i) => {
    const index = typeof c.index === 'number' ? c.index : i;
    const m = isObj(c.message) ? c.message : {};
    const delta: Obj = { role: typeof m.role === 'string' ? m.role : 'assistant', content: m.content ?? null };
    if (m.refusal !== undefined) delta.refusal = m.refusal;
    if (Array.isArray(m.tool_calls))
      delta.tool_calls = m.tool_calls.map((t, at) => (isObj(t) ? { index: at, ...t } : t));
    out += chunk([{ index, delta, finish_reason: null }]);
    out += chunk([{ index, delta: {}, finish_reason: c.finish_reason ?? 'stop' }]);
  });
  for (const e of held.errors) out += event(e);
  if (held.usage !== undefined) out += chunk([], { usage: held.usage });
  if (held.done) out += event('[DONE]');
  return out;
}
