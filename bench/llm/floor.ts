// Bench floor: the least a Node LLM proxy can do per call — node:http in, the body buffered, one undici
// request to the fake upstream (argv[2], its port) on a keep-alive pool, the answer buffered, parsed and
// re-serialised (as usage extraction needs), written back; a `"stream":true` answer (SSE) is relayed chunk by
// chunk as undici reads it, each chunk one client write. No routing, policy, metrics or guards: its CPU per
// call, and per streamed event, is what Node itself costs, the yardstick for the proxy's. Prints its base URL.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';

const origin = `http://127.0.0.1:${process.argv[2]}`;
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 1024 });

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    agent
      .request({
        origin,
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        body,
      })
      .then(async (up) => {
        if (String(up.headers['content-type']).startsWith('text/event-stream')) {
          res.writeHead(up.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          up.body.on('data', (c: Buffer) => res.write(c));
          up.body.on('end', () => res.end());
          up.body.on('error', () => res.destroy());
          return;
        }
        const text = JSON.stringify(JSON.parse(await up.body.text()));
        res.writeHead(up.statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      })
      .catch(() => res.writeHead(502).end());
  });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.stdin.on('end', () => process.exit(0)).resume();
// Exit normally on SIGTERM so `--cpu-prof` (BENCH_PROF=floor.ts) can write its profile.
process.once('SIGTERM', () => process.exit(0));
