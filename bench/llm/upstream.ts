// Bench upstream: a loopback fake of the OpenAI chat-completions API (an LLM vendor cannot run here). It
// answers every POST with one fixed completion, as fast as it can, so the figures are the proxy's cost.
// A request with `"stream":true` gets an SSE stream instead: argv[2] (default 100) content chunks in the
// OpenAI chunk format, a final usage chunk and `[DONE]`, each event its own write, one event-loop turn
// apart (as tokens arrive from a real vendor, so the proxy reads about one event per read).
// Prints its base URL on stdout and runs until its stdin closes.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const chunks = Number(process.argv[2] ?? 100);
const answer = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'bench-model',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'The capital of France is Paris.' }, finish_reason: 'stop' },
  ],
  usage: { prompt_tokens: 42, completion_tokens: 8, total_tokens: 50 },
});
const chunk = (i: number): string =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'bench-model',
    choices: [{ index: 0, delta: { content: i === 0 ? 'Paris' : ' tok' }, finish_reason: null }],
  })}\n\n`;
const events = [
  ...Array.from({ length: chunks }, (_, i) => chunk(i)),
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'bench-model',
    choices: [],
    usage: { prompt_tokens: 42, completion_tokens: chunks, total_tokens: 42 + chunks },
  })}\n\n`,
  'data: [DONE]\n\n',
];

function stream(res: ServerResponse, i = 0): void {
  if (i === events.length) return void res.end();
  res.write(events[i]);
  setImmediate(stream, res, i + 1);
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  let streamed = false;
  req.on('data', (b: Buffer) => {
    if (!streamed && b.includes('"stream":true')) streamed = true;
  });
  req.on('end', () => {
    if (!streamed) return void res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    stream(res);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.stdin.on('end', () => process.exit(0)).resume();
