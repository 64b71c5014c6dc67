// The proxy forwarding plain HTTP to static backends: real node:http upstreams, real sockets, real failures.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyRuntime } from '../../src/proxy/runtime.js';
import { freePort } from './ports.js';
import {
  rawRequest,
  readAll,
  startForwardProxy,
  startUpstream,
  waitUntil,
  type Upstream,
} from './http-forward-harness.js';

describe('HTTP forwarding to a static backend', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  let releaseSse: () => void = () => undefined;
  let sseFinished = false;
  const arrived: string[] = [];
  const abandoned: string[] = [];
  const uploads: number[] = [];

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const url = req.url ?? '';
      arrived.push(url);
      if (url.includes('/sse')) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write('data: one\n\n');
        res.on('close', () => {
          if (!res.writableFinished) abandoned.push(url);
        });
        if (url.includes('/sse-held'))
          releaseSse = () => {
            res.end('data: two\n\n');
            sseFinished = true;
          };
        return;
      }
      if (url.includes('/hop')) {
        res.writeHead(200, {
          connection: 'x-upstream-hop',
          'x-upstream-hop': 'secret',
          'keep-alive': 'timeout=5',
          'proxy-agent': 'up',
          'x-kept': 'yes',
        });
        res.end('ok');
        return;
      }
      if (url.includes('/slow') || url.includes('/hang')) {
        res.on('close', () => {
          if (!res.writableFinished) abandoned.push(url);
        });
        return;
      }
      if (url.includes('/reset')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial ');
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      void readAll(req).then(
        (body) => {
          if (url.includes('/upload')) uploads.push(body.length);
          res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'up' });
          res.end(JSON.stringify({ method: req.method, url, headers: req.headers, body: body.toString() }));
        },
        () => uploads.push(-1),
      );
    });
    const dead = await freePort();
    ({ runtime, base } = await startForwardProxy(
      [
        { name: 'main', prefix: '/up', backends: [{ name: 'up', weight: 1 }] },
        {
          name: 'timed',
          prefix: '/timed',
          backends: [{ name: 'up', weight: 1 }],
          timeouts: { requestMs: 300, backendRequestMs: 0 },
        },
        { name: 'small', prefix: '/small', backends: [{ name: 'up', weight: 1 }], maxRequestBytes: 1024 },
        { name: 'dead', prefix: '/dead', backends: [{ name: 'gone', weight: 1 }] },
        { name: 'nxdomain', prefix: '/nxdomain', backends: [{ name: 'unresolvable', weight: 1 }] },
      ],
      [
        { name: 'up', static: { host: '127.0.0.1', port: upstream.port } },
        { name: 'gone', static: { host: '127.0.0.1', port: dead } },
        // RFC 6761: names under .invalid never resolve.
        { name: 'unresolvable', static: { host: 'gw-test.invalid', port: 80 } },
      ],
    ));
  });

  afterAll(async () => {
    releaseSse();
    await runtime?.close();
    await upstream?.close();
  });

  it('forwards a GET with its path and query and returns the backend status, headers and body', async () => {
    const res = await fetch(`${base}/up/items?x=1&y=%20`);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-upstream')).toBe('up');
    const seen = (await res.json()) as { method: string; url: string };
    expect(seen).toMatchObject({ method: 'GET', url: '/up/items?x=1&y=%20' });
  });

  it('streams a POST body of 1.5 MB to the backend unchanged', async () => {
    const body = 'abcdefghij'.repeat(150_000);
    const res = await fetch(`${base}/up/post`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
    const seen = (await res.json()) as { method: string; body: string; headers: Record<string, string> };
    expect(seen.method).toBe('POST');
    expect(seen.body.length).toBe(body.length);
    expect(seen.body === body).toBe(true);
    expect(seen.headers['content-type']).toBe('text/plain');
  });

  it('delivers SSE events to the client before the backend has finished the response', async () => {
    const res = await fetch(`${base}/up/sse-held`);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('data: one')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('data: one');
    expect(sseFinished).toBe(false);
    releaseSse();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe('data: one\n\ndata: two\n\n');
  });

  it('aborts the upstream stream when the client leaves an SSE response midway', async () => {
    const leave = new AbortController();
    const res = await fetch(`${base}/up/sse-left`, { signal: leave.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('data: one');
    leave.abort();
    await waitUntil('upstream stream closed', () => abandoned.includes('/up/sse-left'));
  });

  it('removes hop-by-hop headers in both directions, including those Connection names', async () => {
    const res = await rawRequest(`${base}/up/headers-in`, {
      headers: {
        connection: 'keep-alive, x-client-hop',
        'x-client-hop': 'secret',
        'keep-alive': 'timeout=9',
        te: 'trailers',
        'proxy-authorization': 'Basic c2VjcmV0',
        'x-kept': 'yes',
      },
    });
    const seen = JSON.parse(res.body) as { headers: Record<string, string> };
    expect(seen.headers['x-kept']).toBe('yes');
    for (const h of ['x-client-hop', 'keep-alive', 'te', 'proxy-authorization'])
      expect(seen.headers, h).not.toHaveProperty(h);
    expect(seen.headers.connection ?? 'keep-alive').toBe('keep-alive');

    const back = await rawRequest(`${base}/up/hop`);
    expect(back.headers['x-kept']).toBe('yes');
    for (const h of ['x-upstream-hop', 'proxy-agent']) expect(back.headers, h).not.toHaveProperty(h);
    expect(back.headers['keep-alive']).not.toBe('timeout=5');
  });

  it('keeps the client Host and sets X-Forwarded-For (appended), X-Forwarded-Proto and X-Forwarded-Host', async () => {
    const res = await rawRequest(`${base}/up/fwd`, {
      headers: { host: 'app.example.com', 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'gopher' },
    });
    const { headers } = JSON.parse(res.body) as { headers: Record<string, string> };
    expect(headers.host).toBe('app.example.com');
    expect(headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
    expect(headers['x-forwarded-proto']).toBe('http');
    expect(headers['x-forwarded-host']).toBe('app.example.com');
  });

  it('answers 503 with a JSON error naming the backend, not the request, when the backend port is closed', async () => {
    const res = await fetch(`${base}/dead/private-token-abc?q=secret`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('backend_unavailable');
    expect(body.error_description).toContain('gone');
    expect(JSON.stringify(body)).not.toMatch(/private-token|secret/);
    expect(await runtime.metrics.registry.getSingleMetricAsString('gw_upstream_failures_total')).toMatch(
      /backend="gone",reason="connect"} 1/,
    );
  });

  it('answers 503 naming the backend when its host name does not resolve', async () => {
    const res = await fetch(`${base}/nxdomain/x`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: 'backend_unavailable',
      error_description: 'backend unresolvable is unreachable',
    });
  });

  it('answers 504 when the backend does not respond within the route timeout, and stops waiting for it', async () => {
    const started = Date.now();
    const res = await fetch(`${base}/timed/slow`);
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({
      error: 'gateway_timeout',
      error_description: 'backend up did not respond in time',
    });
    expect(Date.now() - started).toBeLessThan(3000);
    await waitUntil('upstream request abandoned', () => abandoned.includes('/timed/slow'));
  });

  it('aborts the upstream request when the client goes away', async () => {
    const client = request(`${base}/up/hang`, { agent: false });
    client.on('error', () => undefined);
    client.end();
    await waitUntil('request reached the upstream', () => arrived.includes('/up/hang'));
    client.destroy();
    await waitUntil('upstream request closed', () => abandoned.includes('/up/hang'));
  });

  it('rejects a body over the route max_request_bytes with 413, declared or chunked, before the backend gets it whole', async () => {
    const declared = await rawRequest(`${base}/small/upload`, { method: 'POST', body: Buffer.alloc(2000, 1) });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ error: 'payload_too_large' });
    const chunked = await rawRequest(`${base}/small/upload`, {
      method: 'POST',
      headers: { 'transfer-encoding': 'chunked' },
      body: Buffer.alloc(2000, 1),
    });
    expect(chunked.status).toBe(413);
    const fits = await rawRequest(`${base}/small/upload`, {
      method: 'POST',
      headers: { 'transfer-encoding': 'chunked' },
      body: Buffer.alloc(1000, 1),
    });
    expect(fits.status).toBe(201);
    expect(uploads).not.toContain(2000);
    expect(uploads).toContain(1000);
  });

  it('ends the client connection when the backend resets mid-body, and keeps serving', async () => {
    const res = await fetch(`${base}/up/reset`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    const after = await fetch(`${base}/up/after-reset`);
    expect(after.status).toBe(201);
    // The client may see the cut before the proxy has counted it (Node 22+ closes the client side first).
    await expect
      .poll(() => runtime.metrics.registry.getSingleMetricAsString('gw_upstream_failures_total'), { timeout: 3000 })
      .toMatch(/backend="up",reason="reset"} 1/);
    expect(await runtime.metrics.registry.getSingleMetricAsString('gw_upstream_requests_total')).toMatch(
      /backend="up",class="2xx"} \d+/,
    );
  });
});
