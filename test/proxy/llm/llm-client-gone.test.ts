// A client that goes away while its provider is still thinking: the provider request is aborted (its
// connection closed), so no provider keeps generating tokens nobody reads. The forwarder's own abort
// signal (src/proxy/http/call-signal.ts) carries this to undici.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../system/harness.js';
import { GATEWAY, aiBackend, aiRoute, startLlmProxy, type LlmProxy } from './llm-harness.js';

/** A provider that never answers; it records each request's arrival and the close of its connection. */
const provider = { arrived: 0, closed: 0 };
let upstream: Server;
let proxy: LlmProxy;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    provider.arrived++;
    req.resume();
    res.on('close', () => provider.closed++);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  proxy = await startLlmProxy(`${GATEWAY}
${aiBackend('openai', `openai: {}, host: 127.0.0.1, port: ${port}`)}${aiRoute('llm', '/llm', 'openai')}`);
});
afterAll(async () => {
  await proxy?.close();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

describe('a client that goes away', () => {
  it("aborts the provider request it was waiting on, closing the provider's connection", async () => {
    const gone = request({
      host: '127.0.0.1',
      port: new URL(proxy.base).port,
      path: '/llm/v1/chat/completions',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    gone.on('error', () => {});
    gone.end(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }));
    await waitFor('the request to reach the provider', () => provider.arrived === 1);
    expect(provider.closed).toBe(0);
    gone.destroy();
    await waitFor('the provider connection to close', () => provider.closed === 1);
  });
});
