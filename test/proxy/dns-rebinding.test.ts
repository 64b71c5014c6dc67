// DNS-rebinding protection on a loopback MCP listener: a foreign Host or an Origin the route's CORS
// policy does not allow gets 403 before any session exists; loopback names and same-origin pages pass.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, stdioTarget, type Started } from './harness.js';

const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});

function post(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('DNS rebinding protection', () => {
  let plain: Started;
  let withCors: Started;
  beforeAll(async () => {
    plain = await startProxy({ targets: [stdioTarget('t')] });
    withCors = await startProxy({
      targets: [stdioTarget('t')],
      policies: { cors: { allowOrigins: ['https://app.example'] } },
    });
  });
  afterAll(async () => {
    await plain?.close();
    await withCors?.close();
  });

  it('refuses a foreign Host on a loopback listener with 403 and creates no session', async () => {
    const res = await post(plain.url, { host: 'evil.example', origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({
      error: 'forbidden',
      error_description: expect.stringContaining('DNS rebinding'),
    });
    expect((await post(plain.url, { host: 'evil.example' })).status).toBe(403);
    expect(plain.runtime.sessions.size).toBe(0);
  });

  it('serves loopback names and a same-origin page', async () => {
    const port = new URL(plain.url).port;
    expect((await post(plain.url, { host: `localhost:${port}` })).status).toBe(200);
    expect((await post(plain.url, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).status).toBe(200);
  });

  it('refuses a cross-origin page unless the route CORS policy allows its origin', async () => {
    expect((await post(plain.url, { origin: 'https://app.example' })).status).toBe(403);
    expect((await post(plain.url, { origin: 'null' })).status).toBe(403);
    expect((await post(withCors.url, { origin: 'https://app.example' })).status).toBe(200);
    expect((await post(withCors.url, { origin: 'https://other.example' })).status).toBe(403);
  });
});
