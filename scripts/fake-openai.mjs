// A fake OpenAI chat-completions server for `make run-llm` (no vendor account needed): POST
// /v1/chat/completions with `Authorization: Bearer sk-local-example` answers with the last user message
// echoed back, streamed (SSE) when the request asks for it (usage last with `stream_options.include_usage`); anything else gets OpenAI's error shape.
// Usage: node scripts/fake-openai.mjs [port] (default 3002; 0 picks one and prints it).
import { createServer } from 'node:http';

const KEY = process.env.FAKE_OPENAI_KEY ?? 'sk-local-example';
const port = Number(process.argv[2] ?? 3002);

const fail = (res, status, message, type) =>
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { message, type, param: null, code: null } }));

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (req.headers.authorization !== `Bearer ${KEY}`)
      return fail(
        res,
        401,
        'Incorrect API key provided (the fake server accepts sk-local-example)',
        'invalid_request_error',
      );
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions'))
      return fail(
        res,
        404,
        `the fake server answers only POST /v1/chat/completions, not ${req.method} ${req.url}`,
        'invalid_request_error',
      );
    let chat;
    try {
      chat = JSON.parse(body);
    } catch {
      return fail(res, 400, 'body is not JSON', 'invalid_request_error');
    }
    const last = [...(chat.messages ?? [])].reverse().find((m) => m.role === 'user');
    const text = `You said: ${typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '')}`;
    const base = { id: 'chatcmpl-fake', created: Math.floor(Date.now() / 1000), model: chat.model ?? 'gpt-4o-mini' };
    const usage = { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 };
    if (chat.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta, finish) =>
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: 'assistant', content: text }, null));
      res.write(chunk({}, 'stop'));
      // As OpenAI does: usage in a last chunk without choices when the client asks for it.
      if (chat.stream_options?.include_usage)
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
      return res.end('data: [DONE]\n\n');
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage,
      }),
    );
  });
});
server.listen(port, '127.0.0.1', () =>
  console.log(`fake OpenAI server on http://127.0.0.1:${server.address().port}/v1`),
);
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => server.close(() => process.exit(0)));
