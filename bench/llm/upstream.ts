// Bench upstream: a loopback fake of the OpenAI chat-completions API (an LLM vendor cannot run here). It
// answers every POST with one fixed completion, as fast as it can, so the figures are the proxy's cost.
// Prints its base URL on stdout and runs until its stdin closes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

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
const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.stdin.on('end', () => process.exit(0)).resume();
