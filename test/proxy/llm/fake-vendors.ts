// A loopback FAKE of the OpenAI chat-completions, Anthropic messages and Cohere v2 chat HTTP APIs (the real vendors cannot
// be reached from tests). It records what it received (path, headers, JSON body) and answers in the
// vendor's JSON or SSE shape; tests switch it to failing, hanging or breaking off mid-stream.
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  createServer as createH2cServer,
  createSecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  /** The request came over TLS. */
  tls: boolean;
  /** The HTTP version it came in (`1.1`, `2.0`). */
  version: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/**
 * ok: a normal answer; status: that status with a vendor error body; hang: never answers; break: a stream that
 * stops after one event; moderation-down: `/moderations` answers 500 while the other paths work.
 */
export type FakeMode =
  | { kind: 'ok'; content?: string }
  | { kind: 'moderation-down' }
  | { kind: 'status'; status: number; retryAfter?: number }
  | { kind: 'hang' }
  | { kind: 'break' }
  | { kind: 'held' };

export interface FakeVendor {
  port: number;
  received: Received[];
  mode: FakeMode;
  /** For mode `held`: sends the rest of the stream. */
  release(): void;
  close(): Promise<void>;
}

export const OPENAI_USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
export const ANTHROPIC_USAGE = { input_tokens: 13, output_tokens: 5 };
/** Cohere bills fewer input tokens than the model saw; `tokens` is what is counted. */
export const COHERE_USAGE = {
  billed_units: { input_tokens: 17, output_tokens: 4 },
  tokens: { input_tokens: 23, output_tokens: 4 },
};
/** What the fake adds to its usage when the request carries a `cache_control` breakpoint, as the vendor reports cache use. */
export const ANTHROPIC_CACHE_USAGE = { cache_creation_input_tokens: 20, cache_read_input_tokens: 100 };

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>);
      } catch {
        resolve({});
      }
    });
  });
}

/** A streamed answer's text in two events: `ok` mode's `content` split in the middle, else `Hel` + `lo`. */
function streamedHalves(mode: FakeMode): [string, string] {
  const text = (mode.kind === 'ok' && mode.content) || 'Hello';
  const mid = text === 'Hello' ? 3 : Math.ceil(text.length / 2);
  return [text.slice(0, mid), text.slice(mid)];
}

const sse = (res: ServerResponse, event: string | undefined, data: unknown): void => {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
};

function openAi(
  res: ServerResponse,
  body: Record<string, unknown>,
  mode: FakeMode,
  held: { release?: () => void },
): void {
  const model = body.model;
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: (mode.kind === 'ok' && mode.content) || 'Hello' },
            finish_reason: 'stop',
          },
        ],
        usage: OPENAI_USAGE,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const [first, second] = streamedHalves(mode);
  sse(res, undefined, chunk({ role: 'assistant', content: first }));
  if (mode.kind === 'break') return void setTimeout(() => res.socket?.destroy(), 30);
  const rest = (): void => {
    sse(res, undefined, chunk({ content: second }));
    sse(res, undefined, chunk({}, 'stop'));
    const opts = body.stream_options as { include_usage?: boolean } | undefined;
    if (opts?.include_usage)
      sse(res, undefined, {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1,
        model,
        choices: [],
        usage: OPENAI_USAGE,
      });
    sse(res, undefined, '[DONE]');
    res.end();
  };
  if (mode.kind === 'held') held.release = rest;
  else rest();
}

function anthropic(
  res: ServerResponse,
  body: Record<string, unknown>,
  mode: FakeMode,
  held: { release?: () => void },
): void {
  const model = body.model;
  const cache = JSON.stringify(body).includes('"cache_control"') ? ANTHROPIC_CACHE_USAGE : {};
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: 'Hello' }],
        stop_reason: 'end_turn',
        usage: { ...ANTHROPIC_USAGE, ...cache },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      usage: { input_tokens: 13, output_tokens: 1, ...cache },
    },
  });
  sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  const [first, second] = streamedHalves(mode);
  sse(res, 'content_block_delta', {
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: first },
  });
  if (mode.kind === 'break') return void setTimeout(() => res.socket?.destroy(), 30);
  const rest = (): void => {
    sse(res, 'ping', { type: 'ping' });
    sse(res, 'content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: second },
    });
    sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
    sse(res, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 5 },
    });
    sse(res, 'message_stop', { type: 'message_stop' });
    res.end();
  };
  if (mode.kind === 'held') held.release = rest;
  else rest();
}

/** Cohere's v2 chat (`POST /v2/chat`): a text answer, or a tool call when the request offers tools. */
function cohere(
  res: ServerResponse,
  body: Record<string, unknown>,
  mode: FakeMode,
  held: { release?: () => void },
): void {
  const tools = Array.isArray(body.tools) && body.tools.length > 0;
  const call = { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'cohere-1',
        finish_reason: tools ? 'TOOL_CALL' : 'COMPLETE',
        message: tools
          ? { role: 'assistant', tool_plan: 'I will look it up', tool_calls: [call] }
          : { role: 'assistant', content: [{ type: 'text', text: (mode.kind === 'ok' && mode.content) || 'Hello' }] },
        usage: COHERE_USAGE,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const ev = (type: string, rest: Record<string, unknown> = {}): void => sse(res, type, { type, ...rest });
  ev('message-start', { id: 'cohere-1', delta: { message: { role: 'assistant' } } });
  if (tools) {
    ev('tool-plan-delta', { delta: { message: { tool_plan: 'I will look it up' } } });
    ev('tool-call-start', {
      index: 0,
      delta: { message: { tool_calls: { ...call, function: { name: 'lookup', arguments: '' } } } },
    });
    ev('tool-call-delta', { index: 0, delta: { message: { tool_calls: { function: { arguments: '{"q":"x"}' } } } } });
    ev('tool-call-end', { index: 0 });
    ev('message-end', { delta: { finish_reason: 'TOOL_CALL', usage: COHERE_USAGE } });
    res.end();
    return;
  }
  ev('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
  const [first, second] = streamedHalves(mode);
  ev('content-delta', { index: 0, delta: { message: { content: { text: first } } } });
  if (mode.kind === 'break') return void setTimeout(() => res.socket?.destroy(), 30);
  const rest = (): void => {
    ev('content-delta', { index: 0, delta: { message: { content: { text: second } } } });
    ev('content-end', { index: 0 });
    ev('message-end', { delta: { finish_reason: 'COMPLETE', usage: COHERE_USAGE } });
    res.end();
  };
  if (mode.kind === 'held') held.release = rest;
  else rest();
}

/** A word the fake's moderation endpoint flags (category `violence`) wherever it appears in an input. */
export const FLAGGED_WORD = 'FORBIDDEN';

/** OpenAI's `/v1/moderations` shape: one result per input string; inputs with FLAGGED_WORD are flagged. */
function moderation(res: ServerResponse, body: Record<string, unknown>, mode: FakeMode): void {
  if (mode.kind === 'moderation-down') {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'fake moderation outage', type: 'server_error' } }));
    return;
  }
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const results = inputs.map((text) => {
    const flagged = String(text).includes(FLAGGED_WORD);
    return {
      flagged,
      categories: { violence: flagged, harassment: false },
      category_scores: { violence: flagged ? 0.91 : 0.0012, harassment: 0.0003 },
    };
  });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'modr-1', model: body.model, results }));
}

/**
 * With `tls` the fake serves HTTPS with that certificate and key (PEM). With `http2` it is an HTTP/2 server:
 * h2c only (prior knowledge) without `tls`, h2 and HTTP/1.1 by ALPN with it.
 */
export async function startFakeVendor(
  vendor: 'openai' | 'anthropic' | 'cohere',
  tls?: { cert: string; key: string },
  opts: { http2?: boolean } = {},
): Promise<FakeVendor> {
  const received: Received[] = [];
  const held: { release?: () => void } = {};
  const fake: Partial<FakeVendor> & { mode: FakeMode } = { mode: { kind: 'ok' } };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    void readJson(req).then((body) => {
      received.push({
        path: req.url ?? '',
        tls: (req.socket as TLSSocket).encrypted === true,
        version: req.httpVersion,
        headers: req.headers,
        body,
      });
      const mode = fake.mode;
      if (mode.kind === 'hang') return;
      if (mode.kind === 'status') {
        const error =
          vendor === 'anthropic'
            ? { type: 'error', error: { type: 'overloaded_error', message: `fake ${mode.status}` } }
            : vendor === 'cohere'
              ? { id: 'err-1', message: `fake ${mode.status}` }
              : { error: { message: `fake ${mode.status}`, type: 'server_error' } };
        res.writeHead(mode.status, {
          'content-type': 'application/json',
          ...(mode.retryAfter ? { 'retry-after': String(mode.retryAfter) } : {}),
        });
        res.end(JSON.stringify(error));
        return;
      }
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (path.endsWith('/moderations')) moderation(res, body, mode);
      else if (path.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json', 'x-fake': 'models' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: `${vendor}-model-1`, object: 'model' }] }));
      } else if (path.endsWith('/embeddings')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            data: [{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }],
            model: body.model,
            usage: { prompt_tokens: 3, total_tokens: 3 },
          }),
        );
      } else if (vendor === 'openai') openAi(res, body, mode, held);
      else if (vendor === 'cohere') cohere(res, body, mode, held);
      else anthropic(res, body, mode, held);
    });
  };
  const h2 = handler as unknown as (req: Http2ServerRequest, res: Http2ServerResponse) => void;
  const server: Server = (
    opts.http2
      ? tls
        ? createSecureServer({ ...tls, allowHTTP1: true }, h2)
        : createH2cServer(h2)
      : tls
        ? createHttpsServer(tls, handler)
        : createServer(handler)
  ) as Server;
  const sessions = new Set<Http2Session>();
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(fake, {
    port: (server.address() as AddressInfo).port,
    received,
    release: () => held.release?.(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
        // HTTP/2 servers have no such method; their sessions are destroyed above.
        if (typeof server.closeAllConnections === 'function') server.closeAllConnections();
      }),
  }) as FakeVendor;
}
