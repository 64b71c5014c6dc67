// GwPolicy traffic.extProc end to end: manifests translated by the real translator, served by a real runtime,
// each exchange through the real ext_proc server (test/extproc, go-control-plane's Envoy types) in front of
// a real echo upstream. What the server decoded is read back, so a wrong field number in proto/envoy fails here.
import { request } from 'node:http';
import { connect as h2connect } from 'node:http2';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { rawRequest, readAll, startUpstream, type RawResponse, type Upstream } from './http-forward-harness.js';
import { frontendPolicy, mcpBackendManifest, trafficManifests } from './traffic-manifests.js';
import { translatedIr } from './translated-ir.js';
import { freePort } from './ports.js';
import { bodyOf, ExtProcServer, headerOf } from './ext/ext-proc-server.js';

interface Echo {
  url: string;
  headers: Record<string, string | string[]>;
  body: string;
  trailers: Record<string, string>;
}

describe('external processing (traffic.extProc over the real ext_proc protocol)', () => {
  let processor: ExtProcServer;
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  const upstreamSaw: Echo[] = [];
  const logged: string[] = [];
  let n = 0;

  /** A request with its own `x-test` id (how the server's record of its stream is found). */
  const send = async (
    path: string,
    o: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<RawResponse & { id: string }> => {
    const id = `t${++n}`;
    const res = await rawRequest(`${base}${path}`, { ...o, headers: { 'x-test': id, ...o.headers } });
    return { ...res, id };
  };
  const echoed = (res: RawResponse): Echo => JSON.parse(res.body) as Echo;

  beforeAll(async () => {
    processor = await ExtProcServer.start();
    const dead = await freePort();
    upstream = await startUpstream((req, res) => {
      void readAll(req).then((b) => {
        const echo: Echo = {
          url: req.url ?? '',
          headers: req.headers as Echo['headers'],
          body: b.toString(),
          trailers: req.trailers as Record<string, string>,
        };
        upstreamSaw.push(echo);
        const body = JSON.stringify(echo);
        if (req.headers['x-want-trailers']) {
          res.writeHead(200, { 'content-type': 'application/json', trailer: 'x-backend-trailer' });
          res.addTrailers({ 'x-backend-trailer': 'from-backend' });
          res.end(body);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', 'x-backend-secret': 's3cr3t' }).end(body);
      });
    });
    const url = processor.url;
    const opts = (o: string) => `{url: "${url}", processingOptions: {timeout: 5s${o ? `, ${o}` : ''}}}`;
    const manifests = trafficManifests(
      upstream.port,
      [
        {
          name: 'headers',
          traffic: `{extProc: {url: "${url}", processingOptions: {timeout: 5s}, requestAttributes: {path: 'request.path', method: 'request.method'}, metadataContext: {caller: '{"user": request.headers["x-user"]}'}, responseAttributes: {code: 'response.code'}}}`,
        },
        { name: 'buffered', traffic: `{extProc: ${opts('requestBody: Buffered, responseBody: Buffered')}}` },
        { name: 'partial', traffic: `{extProc: ${opts('requestBody: BufferedPartial, responseHeaders: Skip')}}` },
        {
          name: 'streamed',
          traffic: `{extProc: ${opts('requestBody: FullDuplexStreamed, responseBody: FullDuplexStreamed')}}`,
        },
        { name: 'trailers', traffic: `{extProc: ${opts('responseTrailers: Send')}}` },
        { name: 'closed', traffic: `{extProc: ${opts('')}}` },
        {
          name: 'open',
          traffic: `{extProc: {url: "${url}", failureMode: FailOpen, processingOptions: {timeout: 5s}}}`,
        },
        {
          name: 'openbuffered',
          traffic: `{extProc: {url: "${url}", failureMode: FailOpen, processingOptions: {timeout: 5s, requestBody: Buffered}}}`,
        },
        {
          name: 'openstreamed',
          traffic: `{extProc: {url: "${url}", failureMode: FailOpen, processingOptions: {timeout: 5s, requestBody: FullDuplexStreamed}}}`,
        },
        { name: 'slow', traffic: `{extProc: {url: "${url}", processingOptions: {timeout: 300ms}}}` },
        { name: 'down', traffic: `{extProc: {url: "grpc://127.0.0.1:${dead}", processingOptions: {timeout: 2s}}}` },
        {
          name: 'downopen',
          traffic: `{extProc: {url: "grpc://127.0.0.1:${dead}", failureMode: FailOpen, processingOptions: {timeout: 2s}}}`,
        },
        { name: 'mcp', traffic: `{extProc: ${opts('')}}`, backend: 'tools' },
        { name: 'mcpreq', traffic: `{extProc: ${opts('responseHeaders: Skip')}}`, backend: 'tools' },
      ],
      [
        mcpBackendManifest('tools', dead),
        frontendPolicy('{accessLog: {attributes: {add: [{name: verdict, expression: "extProc.verdict"}]}}}'),
      ].join('---\n'),
    );
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    runtime = new ProxyRuntime({ log: pino({ level: 'info' }, sink) });
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await processor?.close();
  });

  it('applies the header mutation of the request headers phase and sends pseudo-headers, attributes and metadata context', async () => {
    const res = await send('/headers/a?q=1', {
      headers: {
        'x-extproc-do': 'set-header',
        'x-remove-me': 'gone',
        'x-overwrite': 'old',
        'x-appended': 'first',
        'x-user': 'ann',
      },
    });
    expect(res.status).toBe(200);
    const seen = echoed(res).headers;
    expect(seen['x-extproc-added']).toBe('yes');
    expect(seen['x-overwrite']).toBe('new');
    expect(seen['x-remove-me']).toBeUndefined();
    expect(seen['x-appended']).toBe('first, second');
    // What was matched is what is forwarded: the processor's :path, host and content-length are not applied.
    expect(echoed(res).url).toBe('/headers/a?q=1');
    expect(seen.host).toBe(new URL(base).host);
    expect(seen['content-length']).toBeUndefined();
    const [first] = processor.stream(res.id);
    expect(headerOf(first?.requestHeaders?.headers, ':path')).toBe('/headers/a?q=1');
    expect(headerOf(first?.requestHeaders?.headers, ':method')).toBe('GET');
    expect(first?.requestHeaders?.endOfStream).toBe(true);
    expect(first?.attributes?.['envoy.filters.http.ext_proc']).toEqual({ path: '/headers/a', method: 'GET' });
    expect(first?.metadataContext?.filterMetadata?.caller).toEqual({ user: 'ann' });
  });

  it('sends the backend status and headers with the response attributes, and applies its mutation to the answer', async () => {
    const res = await send('/headers/b', { headers: { 'x-extproc-do': 'resp-header' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-extproc-response']).toBe('yes');
    expect(res.headers['x-backend-secret']).toBeUndefined();
    const answer = await processor.message(res.id, (m) => m.responseHeaders !== undefined);
    expect(headerOf(answer?.responseHeaders?.headers, ':status')).toBe('200');
    expect(headerOf(answer?.responseHeaders?.headers, 'x-backend-secret')).toBe('s3cr3t');
    expect(answer?.attributes?.['envoy.filters.http.ext_proc']).toEqual({ code: 200 });
  });

  it('Buffered: the whole body in one message each way, replaced by the answer with a matching length', async () => {
    const res = await send('/buffered', {
      method: 'POST',
      headers: { 'x-extproc-do': 'upper-body,upper-resp-body' },
      body: 'hello body',
    });
    expect(res.status).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    // The backend got the processed body; the client gets the processed answer (the echo, upper-cased).
    expect(res.body).toContain('"BODY":"HELLO BODY"');
    const answered = await processor.message(res.id, (m) => m.responseBody !== undefined);
    const messages = processor.stream(res.id);
    const body = messages.find((m) => m.requestBody);
    expect(bodyOf(body?.requestBody)).toBe('hello body');
    expect(body?.requestBody?.endOfStream).toBe(true);
    expect(messages.find((m) => m.requestHeaders)?.requestHeaders?.endOfStream).toBeFalsy();
    expect(bodyOf(answered.responseBody)).toContain('"body":"HELLO BODY"');
  });

  it('BufferedPartial: the first 64 KiB go to the processor (end_of_stream false), the rest follows unprocessed', async () => {
    const body = 'a'.repeat(100_000);
    const res = await send('/partial', { method: 'POST', headers: { 'x-extproc-do': 'upper-body' }, body });
    expect(res.status).toBe(200);
    const got = echoed(res).body;
    expect(got).toBe('A'.repeat(65_536) + 'a'.repeat(100_000 - 65_536));
    const sent = processor.stream(res.id).find((m) => m.requestBody);
    expect(bodyOf(sent?.requestBody)).toHaveLength(65_536);
    expect(sent?.requestBody?.endOfStream).toBeFalsy();
  });

  it('BufferedPartial with a short body sends all of it as the end of the stream', async () => {
    const res = await send('/partial', { method: 'POST', headers: { 'x-extproc-do': 'upper-body' }, body: 'short' });
    expect(echoed(res).body).toBe('SHORT');
    expect(processor.stream(res.id).find((m) => m.requestBody)?.requestBody?.endOfStream).toBe(true);
  });

  it('FullDuplexStreamed: the body is what the processor streams back, in both directions', async () => {
    const res = await send('/streamed', {
      method: 'POST',
      headers: { 'x-extproc-do': 'upper-body,upper-resp-body,stream-body' },
      body: 'streamed words',
    });
    expect(res.status).toBe(200);
    expect(res.body).toContain('"BODY":"STREAMED WORDS"');
    const messages = processor.stream(res.id);
    expect(messages.filter((m) => m.requestBody).at(-1)?.requestBody?.endOfStream).toBe(true);
    expect(messages.some((m) => m.responseBody)).toBe(true);
  });

  it('an HTTP/2 client body without content-length reaches the backend after the processor saw the headers', async () => {
    const session = h2connect(base);
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const s = session.request({ ':method': 'POST', ':path': '/closed/h2', 'x-extproc-do': 'set-header' });
        let got = '';
        s.on('data', (c: Buffer) => (got += c.toString()));
        s.on('end', () => resolve(got));
        s.on('error', reject);
        s.end('h2 body');
      });
      const echo = JSON.parse(body) as Echo;
      expect(echo.body).toBe('h2 body');
      expect(echo.headers['x-extproc-added']).toBe('yes');
    } finally {
      session.close();
    }
  });

  it('passes an immediate response to the client and never reaches the backend', async () => {
    const before = upstreamSaw.length;
    const res = await send('/closed', { headers: { 'x-extproc-do': 'immediate' } });
    expect(res.status).toBe(403);
    expect(res.body).toBe('stopped by ext_proc');
    expect(res.headers['x-extproc-why']).toBe('policy');
    expect(upstreamSaw.length).toBe(before);
  });

  it('CONTINUE_AND_REPLACE on the request headers replaces the body the backend gets', async () => {
    const res = await send('/closed', { method: 'POST', headers: { 'x-extproc-do': 'replace' }, body: 'original' });
    expect(echoed(res).body).toBe('replaced');
  });

  it('response trailers go through the processor and its mutation reaches the client', async () => {
    const id = `t${++n}`;
    const got = await new Promise<{ trailers: NodeJS.Dict<string>; body: string }>((resolve, reject) => {
      const r = request(`${base}/trailers`, { headers: { 'x-test': id, 'x-want-trailers': '1' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ trailers: res.trailers, body }));
      });
      r.on('error', reject);
      r.end();
    });
    expect(got.trailers['x-extproc-trailer']).toBe('response');
    expect(got.trailers['x-backend-trailer']).toBe('from-backend');
    const t = await processor.message(id, (m) => m.responseTrailers !== undefined);
    expect(headerOf(t.responseTrailers?.trailers, 'x-backend-trailer')).toBe('from-backend');
  });

  it('FailClosed: a processor that fails the call ends the request with 500 before the backend', async () => {
    const before = upstreamSaw.length;
    const res = await send('/closed', { headers: { 'x-extproc-do': 'fail-headers' } });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'processing_failed' });
    expect(upstreamSaw.length).toBe(before);
  });

  it('FailOpen: a failed headers call continues unprocessed', async () => {
    const res = await send('/open', { headers: { 'x-extproc-do': 'fail-headers,set-header' } });
    expect(res.status).toBe(200);
    expect(echoed(res).headers['x-extproc-added']).toBeUndefined();
  });

  it('FailOpen: a failed Buffered body call continues with the body as the client sent it', async () => {
    const res = await send('/openbuffered', {
      method: 'POST',
      headers: { 'x-extproc-do': 'fail-body' },
      body: 'as sent',
    });
    expect(res.status).toBe(200);
    expect(echoed(res).body).toBe('as sent');
  });

  it('FailOpen no longer applies once the request body streams to the processor (seed rule)', async () => {
    const before = upstreamSaw.length;
    const res = await send('/openstreamed', {
      method: 'POST',
      headers: { 'x-extproc-do': 'fail-body' },
      body: 'streaming',
    });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'processing_failed' });
    expect(upstreamSaw.slice(before).some((e) => e.body === 'streaming')).toBe(false);
  });

  it('a processor slower than processingOptions.timeout counts as a failed call', async () => {
    const res = await send('/slow', { headers: { 'x-extproc-do': 'slow-headers' } });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'processing_failed' });
  });

  it('an unreachable processor: 500 under FailClosed, unprocessed under FailOpen', async () => {
    expect((await send('/down')).status).toBe(500);
    expect((await send('/downopen')).status).toBe(200);
  });

  it('puts the dynamic metadata of the answer into CEL `extProc` of the access log', async () => {
    const res = await send('/headers/meta', { headers: { 'x-extproc-do': 'metadata' } });
    expect(res.status).toBe(200);
    const line = logged
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'access' && l.path === '/headers/meta');
    expect(line?.verdict).toBe('clean');
  });

  it('passes the answers the MCP endpoint writes through the processor, and serves request-only processing there', async () => {
    const res = await send('/mcp', { method: 'POST', headers: { 'x-extproc-do': 'resp-header' }, body: '{}' });
    expect(res.status).not.toBe(503);
    expect(res.headers['x-extproc-response']).toBe('yes');
    const answer = await processor.message(res.id, (m) => m.responseHeaders !== undefined);
    expect(headerOf(answer.responseHeaders?.headers, ':status')).toBe(String(res.status));
    const req = await send('/mcpreq', { method: 'POST', headers: { 'x-extproc-do': 'immediate' }, body: '{}' });
    expect(req.status).toBe(403);
  });
});
