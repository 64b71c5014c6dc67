// The response half of `traffic.extProc` on forwarded HTTP routes: the backend's status and headers, body
// and trailers through the processor before the client gets them. The forwarder hands its answer over and
// passes on what comes back (its own buffering and trailer rules still apply).
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { Readable as ReadableStream } from 'node:stream';
import type { UpstreamResponse } from '../http/h2-upstream.js';
import { sendError } from '../http/http-error.js';
import { bufferedBody, mutatedBody, streamedBody, type BodyOutcome, type BodyPhase } from './ext-proc-body.js';
import { processesAnswers, type ExtProcSession } from './ext-proc-session.js';
import { applyMutation, headerMapOf } from './ext-proc-wire.js';

/** Default bound of a response body the processor gets in Buffered modes, as for requests (the proxy's 2 MiB). */
export const defaultAnswerLimit = 2 * 1024 * 1024;

/** Takes the backend's answer through the processor; undefined when the client already has its answer. */
export type AnswerHook = (up: UpstreamResponse, res: ServerResponse) => Promise<UpstreamResponse | undefined>;

export function answerHook(s: ExtProcSession, limit: number = defaultAnswerLimit): AnswerHook | undefined {
  if (!processesAnswers(s.plan)) return undefined;
  return (up, res) => processAnswer(s, up, res, limit);
}

const bodyless = (status: number, headers: UpstreamResponse['headers']): boolean =>
  status === 204 || status === 304 || headers['content-length'] === '0';

async function processAnswer(
  s: ExtProcSession,
  up: UpstreamResponse,
  res: ServerResponse,
  limit: number,
): Promise<UpstreamResponse | undefined> {
  if (s.off) return up;
  const plan = s.plan;
  const headers: UpstreamResponse['headers'] = { ...up.headers };
  const status = up.statusCode;
  if (plan.responseHeaders) {
    const response = { code: status, headers: flatten(up.headers) };
    const answer = await s.ask(
      res,
      'responseHeaders',
      { headers: headerMapOf(up.headers, { ':status': String(status) }), endOfStream: bodyless(status, up.headers) },
      s.responseExtras(response),
    );
    if (answer.kind === 'answered') return dropped(up);
    if (answer.kind === 'unprocessed') return up;
    applyMutation(headers, answer.common?.headerMutation);
    if (answer.common?.status === 'CONTINUE_AND_REPLACE') {
      await up.body.dump();
      return withBody(up, headers, { kind: 'bytes', body: mutatedBody(Buffer.alloc(0), answer.common.bodyMutation) });
    }
  }
  const phase: BodyPhase = { session: s, res, phase: 'responseBody', headers, apply: applyMutation, limit };
  let body: BodyOutcome;
  // As for requests: an answer without a body has no body or trailer phase.
  if (bodyless(status, up.headers)) return withBody(up, headers, { kind: 'stream', body: up.body });
  if (plan.responseBody === 'buffered' || plan.responseBody === 'partial')
    body = await bufferedBody(up.body, phase, plan.responseBody === 'partial');
  else if (plan.responseBody === 'streamed') body = { kind: 'stream', body: streamedBody(up.body, phase) };
  else body = { kind: 'stream', body: up.body };
  if (body.kind === 'too_large') {
    s.close();
    up.body.destroy();
    sendError(
      res,
      'response_too_large',
      `the backend's answer exceeds the ${limit} bytes the external processor may buffer`,
    );
    return undefined;
  }
  if (body.kind === 'gone') {
    s.failed(res, 'the backend answer ended early');
    return undefined;
  }
  if (body.kind === 'answered') return dropped(up);
  if (body.kind === 'unprocessed') return up;
  const out = withBody(up, headers, body);
  if (plan.responseTrailers) out.body = withTrailerPhase(s, res, up, out);
  return out;
}

/** The backend's trailers, once its body is read: sent when there are any; the mutation applies to what the client gets. */
function withTrailerPhase(s: ExtProcSession, res: ServerResponse, up: UpstreamResponse, out: UpstreamResponse) {
  const src = out.body;
  const relay = dumpable(new ReadableStream({ read: () => src.resume() }));
  src.on('data', (c: Buffer) => {
    if (!relay.push(c)) src.pause();
  });
  src.once('error', (err) => relay.destroy(err));
  src.once('end', () => {
    void (async () => {
      if (!s.off && Object.keys(up.trailers).length > 0) {
        const answer = await s.ask(res, 'responseTrailers', { trailers: headerMapOf(up.trailers) });
        if (answer.kind === 'answered')
          return relay.destroy(new Error('the external processor failed on the trailers'));
        if (answer.kind === 'continue') {
          const trailers: Record<string, string | string[] | undefined> = { ...up.trailers };
          applyMutation(trailers, answer.trailers);
          for (const k of Object.keys(out.trailers)) delete out.trailers[k];
          Object.assign(out.trailers, trailers);
        }
      }
      relay.push(null);
    })();
  });
  return relay;
}

function flatten(h: UpstreamResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
}

function dropped(up: UpstreamResponse): undefined {
  up.body.destroy();
  return undefined;
}

function dumpable(r: Readable): Readable & { dump(): Promise<void> } {
  return Object.assign(r, {
    dump: async () => {
      r.resume();
      await new Promise((resolve) => r.once('end', resolve).once('close', resolve));
    },
  });
}

/** The answer as the forwarder passes it on: processed headers, and the body with framing to match (A2A cards too). */
export function withBody(
  up: UpstreamResponse,
  headers: UpstreamResponse['headers'],
  body: { kind: 'bytes'; body: Buffer } | { kind: 'stream'; body: Readable },
): UpstreamResponse {
  if (body.kind === 'bytes') {
    headers['content-length'] = String(body.body.length);
    delete headers['transfer-encoding'];
  } else if (body.body !== up.body) delete headers['content-length'];
  const stream = body.kind === 'bytes' ? ReadableStream.from([body.body]) : body.body;
  // The forwarder reads trailers once the body ended; the processed answer keeps the backend's (or the phase's).
  return { statusCode: up.statusCode, headers, body: dumpable(stream), trailers: up.trailers };
}
