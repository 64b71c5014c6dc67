// A loopback FAKE of the Amazon Bedrock AgentCore runtime data plane (InvokeAgentRuntime), which cannot
// be reached from tests. It verifies each request's SigV4 signature with the Bedrock fake's own verifier
// (written from AWS's documentation, sharing no code with the proxy's signer) and answers by the runtime
// id in the ARN: `echo-*` JSON describing the call, `stream-*` an SSE stream whose last event waits for
// `release()`, `flaky-*` 503 on its first call and JSON after, `down-*` 503 always, `slow-*` never.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { startTestServer } from '../fixtures/test-server.js';
import { verify } from './llm/fake-bedrock.js';

export interface AgentCoreReceived {
  method: string;
  /** The request target as sent (percent-encoded ARN). */
  url: string;
  arn: string;
  qualifier: string | null;
  headers: IncomingHttpHeaders;
  body: string;
  /** '1.1' or '2.0'. */
  httpVersion: string;
  signatureValid: boolean;
  accessKeyId: string;
  /** `day/region/service` of the signature. */
  scope: string;
}

export interface FakeAgentCore {
  port: number;
  received: AgentCoreReceived[];
  /** Lets the pending `stream-*` responses send their last event and end. */
  release(): void;
  close(): Promise<void>;
}

const INVOCATIONS = /^\/runtimes\/([^/?]+)\/invocations(?:\?(.*))?$/;

/**
 * `secrets`: secret access key by access key id, the keys the fake accepts. `h2c`: served by node:http2 by prior
 * knowledge alone, where the host a signature covers is `:authority` (RFC 9113 §8.3.1: it replaces Host).
 */
export async function startFakeAgentCore(
  secrets: Record<string, string>,
  opts: { h2c?: boolean } = {},
): Promise<FakeAgentCore> {
  const received: AgentCoreReceived[] = [];
  let released = false;
  const calls = new Map<string, number>();
  const waiting: (() => void)[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.httpVersionMajor === 2) req.headers.host ??= String(req.headers[':authority'] ?? '');
      const m = INVOCATIONS.exec(req.url ?? '');
      const arn = m ? decodeURIComponent(m[1] ?? '') : '';
      const qualifier = m?.[2] ? new URLSearchParams(m[2]).get('qualifier') : null;
      const v = verify(req, raw, secrets);
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        arn,
        qualifier,
        headers: req.headers,
        body: raw.toString(),
        httpVersion: req.httpVersion,
        signatureValid: v.valid,
        accessKeyId: v.accessKeyId,
        scope: v.scope,
      });
      const error = (status: number, type: string, message: string): void => {
        res
          .writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type })
          .end(JSON.stringify({ message }));
      };
      if (!m || req.method !== 'POST')
        return error(404, 'UnknownOperationException', 'fake: not an InvokeAgentRuntime call');
      if (!v.valid) return error(403, 'InvalidSignatureException', 'fake: the request signature does not match');
      const runtime = arn.slice(arn.indexOf('runtime/') + 'runtime/'.length);
      const session = String(
        req.headers['x-amzn-bedrock-agentcore-runtime-session-id'] ?? 'fake-generated-session-id-0000000000',
      );
      if (runtime.startsWith('slow-')) return;
      calls.set(runtime, (calls.get(runtime) ?? 0) + 1);
      if (runtime.startsWith('down-')) return error(503, 'ServiceUnavailableException', 'fake: the runtime is down');
      if (runtime.startsWith('flaky-') && calls.get(runtime) === 1)
        return error(503, 'ServiceUnavailableException', 'fake: try again');
      if (runtime.startsWith('stream-')) {
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'x-amzn-bedrock-agentcore-runtime-session-id': session,
        });
        res.write('data: {"part":1}\n\n');
        const finish = (): void => void res.end('data: {"part":2}\n\n');
        if (released) finish();
        else waiting.push(finish);
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-amzn-bedrock-agentcore-runtime-session-id': session,
      });
      res.end(JSON.stringify({ runtime, qualifier, payload: raw.toString() }));
    });
  };
  const server = await startTestServer(handler, opts.h2c ? { http2: { allowHTTP1: false } } : {});
  return {
    port: server.port,
    received,
    release: () => {
      released = true;
      for (const f of waiting.splice(0)) f();
    },
    close: () => server.close(),
  };
}
