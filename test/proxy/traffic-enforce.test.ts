// GwPolicy traffic settings that used to be accepted and skipped (issue 14/15): csrf, hostRewrite, delay,
// buffer.request failureMode and buffer.response. Translated from manifests, served by a real runtime to a
// real node:http upstream; each case fails if its field were skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, readAll, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

describe('GwPolicy traffic settings enforced on forwarded routes', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  let host: string;
  let hits = 0;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      hits++;
      const url = req.url ?? '';
      if (url.startsWith('/bigout')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('x'.repeat(600));
        setTimeout(() => res.end('y'.repeat(600)), 10);
        return;
      }
      void readAll(req).then((body) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ host: req.headers.host, bytes: body.length })),
      );
    });
    runtime = new ProxyRuntime({ log });
    await runtime.apply(
      translatedIr(
        trafficManifests(upstream.port, [
          { name: 'csrf', traffic: "{csrf: {additionalOrigins: ['https://app.example']}}" },
          { name: 'open', traffic: '{timeouts: {request: 5s}}' },
          { name: 'hostrw', traffic: '{hostRewrite: internal.example}' },
          { name: 'slow', traffic: '{delay: {duration: 200ms}}' },
          { name: 'slowcel', traffic: `{delay: {duration: "request.headers['x-wait']"}}` },
          { name: 'late', traffic: '{delay: {duration: 300ms}, timeouts: {request: 100ms}}' },
          { name: 'bigin', traffic: '{buffer: {request: {maxBytes: 1Ki}}}' },
          { name: 'bigin-open', traffic: '{buffer: {request: {maxBytes: 1Ki, failureMode: FailOpen}}}' },
          { name: 'bigout', traffic: '{buffer: {response: {maxBytes: 1Ki}}}' },
          { name: 'bigout-open', traffic: '{buffer: {response: {maxBytes: 1Ki, failureMode: FailOpen}}}' },
          { name: 'smallout', traffic: '{buffer: {response: {maxBytes: 1Mi}}}' },
        ]),
      ),
    );
    const port = Object.values(runtime.boundPorts())[0];
    base = `http://127.0.0.1:${port}`;
    host = `127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('refuses a cross-site POST with 403 and never forwards it', async () => {
    const before = hits;
    const res = await rawRequest(`${base}/csrf/x`, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
      body: '{}',
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'forbidden' });
    expect(hits).toBe(before);
  });

  it('refuses a POST the browser marks cross-site even without a matching Origin check', async () => {
    const res = await rawRequest(`${base}/csrf/x`, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'cross-site' },
      body: '{}',
    });
    expect(res.status).toBe(403);
  });

  it('passes a same-origin POST, one from an additional origin, a GET from anywhere and a POST without Origin', async () => {
    expect(
      (await rawRequest(`${base}/csrf/x`, { method: 'POST', headers: { origin: `http://${host}` }, body: '{}' }))
        .status,
    ).toBe(200);
    expect(
      (await rawRequest(`${base}/csrf/x`, { method: 'POST', headers: { origin: 'https://app.example' }, body: '{}' }))
        .status,
    ).toBe(200);
    expect((await rawRequest(`${base}/csrf/x`, { headers: { origin: 'https://evil.example' } })).status).toBe(200);
    expect((await rawRequest(`${base}/csrf/x`, { method: 'POST', body: '{}' })).status).toBe(200);
  });

  it('forwards a cross-site POST on a route without csrf', async () => {
    expect(
      (await rawRequest(`${base}/open/x`, { method: 'POST', headers: { origin: 'https://evil.example' }, body: '{}' }))
        .status,
    ).toBe(200);
  });

  it('sends the rewritten Host to the backend', async () => {
    const res = await rawRequest(`${base}/hostrw/x`);
    expect(JSON.parse(res.body)).toMatchObject({ host: 'internal.example' });
  });

  it('waits the fixed delay before forwarding', async () => {
    const t0 = Date.now();
    expect((await rawRequest(`${base}/slow/x`)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it('waits a CEL delay read from the request', async () => {
    const t0 = Date.now();
    expect((await rawRequest(`${base}/slowcel/x`, { headers: { 'x-wait': '200ms' } })).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it('counts the delay against the request timeout: 504 without reaching the backend', async () => {
    const before = hits;
    const res = await rawRequest(`${base}/late/x`);
    expect(res.status).toBe(504);
    expect(hits).toBe(before);
  });

  it('answers 413 to a request body over buffer.request.maxBytes (FailClosed)', async () => {
    const res = await rawRequest(`${base}/bigin/x`, { method: 'POST', body: 'z'.repeat(2048) });
    expect(res.status).toBe(413);
  });

  it('passes a request body over the limit on with buffer.request FailOpen', async () => {
    const res = await rawRequest(`${base}/bigin-open/x`, { method: 'POST', body: 'z'.repeat(2048) });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ bytes: 2048 });
  });

  it('answers 502 response_too_large when the answer exceeds buffer.response.maxBytes', async () => {
    const res = await rawRequest(`${base}/bigout/x`);
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'response_too_large' });
  });

  it('passes an oversize answer on unbuffered with buffer.response FailOpen', async () => {
    const res = await rawRequest(`${base}/bigout-open/x`);
    expect(res.status).toBe(200);
    expect(res.body).toBe('x'.repeat(600) + 'y'.repeat(600));
  });

  it('sends a buffered answer whole with its length', async () => {
    const res = await rawRequest(`${base}/smallout/x`);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
  });
});
