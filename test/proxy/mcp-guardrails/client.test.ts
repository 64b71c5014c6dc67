// The processor client and chain against real loopback servers that misbehave in the ways a
// processor can: silence, HTTP errors, answers that are not verdicts, configuration that cannot run.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpGuardrailProcessor } from '../../../src/ir/types.js';
import { processorClient } from '../../../src/proxy/mcp/guardrails/client.js';
import {
  GuardrailRejected,
  GuardrailUnavailable,
  compileGuardrails,
  contractVersion,
  type ProcessorRequest,
} from '../../../src/proxy/mcp/guardrails/index.js';
import type { JsonRpcRequest } from '../../../src/proxy/mcp/jsonrpc.js';
import { capturingLogger, startHttp, type Running } from './servers.js';

// Each path answers one way; /silent never answers.
const answers: Record<string, (res: ServerResponse) => void> = {
  '/forbidden': (res) => res.writeHead(403, { 'content-type': 'text/plain' }).end('no'),
  '/text': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('allow'),
  '/unknown': (res) => res.writeHead(200).end(JSON.stringify({ action: 'maybe' })),
  '/modify-nothing': (res) => res.writeHead(200).end(JSON.stringify({ action: 'modify' })),
  '/bare-reject': (res) => res.writeHead(200).end(JSON.stringify({ action: 'reject' })),
  '/allow': (res) => res.writeHead(200).end(JSON.stringify({ action: 'allow' })),
};

let server: Running;
let origin = '';
beforeAll(async () => {
  server = await startHttp((req, res) => {
    req.resume();
    req.on('end', () => answers[req.url ?? '']?.(res));
  });
  origin = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server?.close();
});

const body: ProcessorRequest = {
  version: contractVersion,
  phase: 'request',
  method: 'tools/call',
  id: 1,
  sessionId: 's',
  params: { name: 'echo' },
  metadata: {},
  headers: {},
};

describe('the processor client', () => {
  it('gives up on a processor that does not answer within the timeout', async () => {
    const client = processorClient(`${origin}/silent`, 200);
    const started = Date.now();
    expect(String(await client.ask(body))).toBe('Error: no answer within 200 ms');
    expect(Date.now() - started).toBeLessThan(2000);
    await client.close();
  });

  it.each([
    ['/forbidden', 'Error: answered HTTP 403'],
    ['/text', 'Error: the answer is not JSON'],
    ['/unknown', 'Error: "action" must be allow, modify or reject, got "maybe"'],
    ['/modify-nothing', 'Error: a modify verdict in the request phase needs an object "params"'],
  ])('treats %s as a processor failure, not a verdict', async (path, message) => {
    const client = processorClient(`${origin}${path}`, 2000);
    expect(String(await client.ask(body))).toBe(message);
    await client.close();
  });

  it('fills in the code and message of a bare rejection', async () => {
    const client = processorClient(`${origin}/bare-reject`, 2000);
    expect(await client.ask(body)).toEqual({
      action: 'reject',
      error: { code: GuardrailRejected, message: 'rejected by a guardrail' },
    });
    await client.close();
  });
});

describe('a guardrail chain that cannot run as configured', () => {
  const processor = (over: Partial<McpGuardrailProcessor>): McpGuardrailProcessor => ({
    methods: { 'tools/call': 'GUARDRAIL_REQUEST' },
    url: `${origin}/allow`,
    failureMode: 'FAIL_OPEN',
    metadata: {},
    allowedRequestHeaders: [],
    disallowedRequestHeaders: [],
    problem: '',
    source: 'GwPolicy default/p backend.mcp.guardrails.processors[0]',
    ...over,
  });
  const req: JsonRpcRequest = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo' } };
  const call = { claims: null, request: { method: 'POST', path: '/mcp', headers: {} } };

  async function run(p: McpGuardrailProcessor, timeoutMs?: number) {
    const { log, lines } = capturingLogger();
    const chain = compileGuardrails({ processors: [p] }, log, timeoutMs ? { timeoutMs } : {});
    let forwarded = false;
    const out = await chain.around(req, call, { id: 's', log }, async (r) => {
      forwarded = true;
      return { jsonrpc: '2.0', id: r.id, result: {} };
    });
    return { out, forwarded, lines };
  }

  it.each([
    [
      'a metadata expression that does not compile',
      { metadata: { who: 'jwt.sub +' } },
      'metadata "who" is not a valid CEL expression',
    ],
    [
      'a metadata expression naming an unknown variable',
      { metadata: { who: 'llmRequest.model' } },
      'metadata "who" names unknown variable "llmRequest"',
    ],
    ['a url that is not http', { url: 'grpc://guard:9000' }, 'url must be an http or https URL'],
    [
      'a bad method pattern',
      { methods: { 'a*b': 'GUARDRAIL_OFF' as const } },
      'method pattern "a*b" must be an exact method',
    ],
  ])('rejects every call when it has %s, even with FailOpen', async (_what, over, problem) => {
    const { out, forwarded, lines } = await run(processor(over));
    expect(forwarded).toBe(false);
    expect(out).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: GuardrailUnavailable,
        message: 'the call was not forwarded: guardrail processor 1 is misconfigured',
      },
    });
    const logged = lines.map((l) => JSON.parse(l) as { problem?: string; level: number }).find((l) => l.problem);
    expect(logged?.level).toBe(50); // error: once, when the route is compiled
    expect(logged?.problem).toContain(problem);
  });

  it('rejects with FailClosed when the processor times out, and logs the URL without its query', async () => {
    const { out, forwarded, lines } = await run(
      processor({ url: `${origin}/silent?key=k3y-in-query`, failureMode: 'FAIL_CLOSED' }),
      150,
    );
    expect(forwarded).toBe(false);
    expect(out).toMatchObject({
      error: {
        code: GuardrailUnavailable,
        message: 'the call was not forwarded: guardrail processor 1 is unavailable',
      },
    });
    const warned = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.failureMode === 'FailClosed');
    expect(warned).toMatchObject({ url: `${origin}/silent`, err: 'no answer within 150 ms' });
    expect(lines.join('\n')).not.toContain('k3y-in-query');
  });
});
