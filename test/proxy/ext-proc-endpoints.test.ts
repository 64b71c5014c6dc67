// traffic.extProc's response phases on the routes whose answers the proxy writes itself: LLM routes (JSON and
// streamed SSE answers) and MCP routes (JSON-RPC answers). Real translator and runtime on 127.0.0.1:0, the
// real ext_proc server (test/extproc) upper-casing or recording what it is shown, a loopback OpenAI fake and a
// real MCP server (the SDK's) behind them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { bodyOf, ExtProcServer, headerOf } from './ext/ext-proc-server.js';
import { startFakeVendor, type FakeVendor } from './llm/fake-vendors.js';
import { aiBackend, sseData } from './llm/llm-harness.js';
import { startTarget, type Running } from './mcp-guardrails/servers.js';
import { mcpBackendManifest, trafficManifests } from './traffic-manifests.js';
import { translatedIr } from './translated-ir.js';
import { waitFor } from './harness.js';

describe('external processing of the answers of LLM and MCP routes', () => {
  let processor: ExtProcServer;
  let vendor: FakeVendor;
  let target: Running;
  let runtime: ProxyRuntime;
  let base: string;
  let n = 0;

  beforeAll(async () => {
    processor = await ExtProcServer.start();
    vendor = await startFakeVendor('openai');
    target = await startTarget();
    const opts = (o: string) => `{extProc: {url: "${processor.url}", processingOptions: {timeout: 5s, ${o}}}}`;
    const manifests = trafficManifests(
      vendor.port,
      [
        { name: 'llmbuffered', traffic: opts('responseBody: Buffered'), backend: 'llm' },
        { name: 'llmstreamed', traffic: opts('responseBody: FullDuplexStreamed'), backend: 'llm' },
        { name: 'llmheaders', traffic: opts('responseTrailers: Skip'), backend: 'llm' },
        { name: 'mcpbuffered', traffic: opts('responseBody: Buffered'), backend: 'tools' },
        { name: 'mcpstreamed', traffic: opts('responseBody: FullDuplexStreamed'), backend: 'tools' },
      ],
      [aiBackend('llm', `openai: {}, host: 127.0.0.1, port: ${vendor.port}`), mcpBackendManifest('tools', target.port)]
        .join('---\n')
        .replace(/^\n?---\n/, ''),
    );
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }) });
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  }, 60_000);

  afterAll(async () => {
    await runtime?.close();
    await vendor?.close();
    await target?.close();
    await processor?.close();
  });

  const chat = async (path: string, stream: boolean, words: string) => {
    vendor.mode = { kind: 'ok' };
    const id = `e${++n}`;
    const res = await fetch(`${base}${path}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test': id, 'x-extproc-do': words },
      body: JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    return { res, text: await res.text(), seen: processor.stream(id) };
  };

  it('LLM route: the answer headers and the whole JSON answer go through the processor (Buffered)', async () => {
    const { res, text, seen } = await chat('/llmbuffered', false, 'resp-header,upper-resp-body');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-extproc-response')).toBe('yes');
    expect(text).toContain('"CHOICES"');
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    const headers = seen.find((m) => m.responseHeaders)?.responseHeaders;
    expect(headerOf(headers?.headers, ':status')).toBe('200');
    const body = seen.filter((m) => m.responseBody);
    expect(body).toHaveLength(1);
    expect(bodyOf(body[0]?.responseBody)).toContain('"choices"');
    expect(body[0]?.responseBody?.endOfStream).toBe(true);
  });

  it('LLM route: a streamed answer goes to the processor event by event and the client gets what it streams back (FullDuplexStreamed)', async () => {
    vendor.mode = { kind: 'held' };
    const id = `e${++n}`;
    const res = await fetch(`${base}/llmstreamed/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test': id, 'x-extproc-do': 'upper-resp-body,stream-body' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    // The provider holds the rest of its stream: the first event reached the client through the processor alone.
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('DATA: {');
    await waitFor(() => processor.stream(id).some((m) => m.responseBody && !m.responseBody.endOfStream));
    expect(processor.stream(id).some((m) => m.responseBody?.endOfStream)).toBe(false);
    vendor.release();
    let text = first;
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    expect(text).toContain('DATA: [DONE]');
    expect(text).not.toContain('data: ');
    await waitFor(() => processor.stream(id).some((m) => m.responseBody?.endOfStream));
    const shown = processor.stream(id).filter((m) => m.responseBody);
    expect(shown.map((m) => bodyOf(m.responseBody)).join('')).toContain('data: [DONE]');
  });

  it('LLM route: Buffered on a streamed answer holds the whole stream and shows it to the processor once', async () => {
    const { res, text, seen } = await chat('/llmbuffered', true, 'upper-resp-body');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(sseData(text.replace(/DATA: /g, 'data: ')).at(-1)).toBe('[DONE]');
    const chunks = seen.filter((m) => m.responseBody);
    expect(chunks).toHaveLength(1);
    expect(bodyOf(chunks[0]?.responseBody)).toContain('data: [DONE]');
  });

  it('LLM route: a processor failing on the answer headers ends the exchange with 500 (FailClosed)', async () => {
    const { res, text } = await chat('/llmheaders', false, 'fail-response');
    expect(res.status).toBe(500);
    expect(text).toContain('processing_failed');
    expect(text).not.toContain('choices');
  });

  const mcpClient = async (path: string, words: string, id: string) => {
    const client = new Client({ name: 'ext-proc-test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
      requestInit: { headers: { 'x-test': id, 'x-extproc-do': words } },
    });
    await client.connect(transport);
    return client;
  };

  it('MCP route: the JSON-RPC answer (an SSE event here) goes through the processor, which can rewrite it (Buffered)', async () => {
    const id = `e${++n}`;
    const res = await fetch(`${base}/mcpbuffered`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-test': id,
        'x-extproc-do': 'resp-header,upper-resp-body',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-extproc-response')).toBe('yes');
    // The client accepts SSE, so the endpoint answers with an event: the processor rewrote the event stream.
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(text).toContain('"JSONRPC":"2.0"');
    expect(text).not.toContain('"jsonrpc"');
    const body = await processor.message(id, (m) => m.responseBody !== undefined);
    expect(bodyOf(body.responseBody)).toContain('"protocolVersion"');
  });

  it('MCP route: a tool call answer (SSE) reaches the processor and then the client, buffered or streamed event by event', async () => {
    for (const [path, words] of [
      ['/mcpbuffered', ''],
      ['/mcpstreamed', 'stream-body'],
    ] as const) {
      const id = `e${++n}`;
      const client = await mcpClient(path, words, id);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'seen-by-processor' } });
      expect(JSON.stringify(result)).toContain('echo:seen-by-processor');
      await client.close();
      const shown = () =>
        processor
          .streamsOf(id)
          .filter((m) => m.responseBody)
          .map((m) => bodyOf(m.responseBody))
          .join('');
      // Streamed: the client can have the event before the processor's record of it reaches the test.
      await waitFor(() => shown().includes('echo:seen-by-processor')).catch(() => undefined);
      expect(shown(), path).toContain('echo:seen-by-processor');
    }
  });
});
