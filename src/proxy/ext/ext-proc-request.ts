// The request half of `traffic.extProc`: the client's headers, body and trailers through the processor
// before the request goes on (pipeline stage `external-processing`). What continues is a copy of the
// request carrying the processed headers and body; the route stays the one matched before (a processor's
// clear_route_cache changes nothing: routes are chosen once, before it).
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { sendError } from '../http/http-error.js';
import { requestHasBody } from '../http/http-forward.js';
import { bufferedBody, mutatedBody, streamedBody, type BodyOutcome, type BodyPhase } from './ext-proc-body.js';
import type { ExtProcSession } from './ext-proc-session.js';
import { applyMutation, headerMapOf } from './ext-proc-wire.js';

/** The request's pseudo-headers as Envoy sends them to a processor. */
function pseudoHeaders(req: IncomingMessage): Record<string, string> {
  const tls = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  return {
    ':method': req.method ?? 'GET',
    ':path': req.url ?? '/',
    ':authority': req.headers.host ?? req.headers[':authority']?.toString() ?? '',
    ':scheme': tls ? 'https' : 'http',
  };
}

/**
 * Runs the request phases. Returns the request to continue with, or undefined when the client already has
 * its answer (an immediate response, a failed call under FailClosed, a body over the limit).
 */
export async function processRequest(
  s: ExtProcSession,
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<IncomingMessage | undefined> {
  const plan = s.plan;
  const hasBody = requestHasBody(req);
  const headers = { ...req.headers };
  if (plan.requestHeaders) {
    const answer = await s.ask(res, 'requestHeaders', {
      headers: headerMapOf(req.headers, pseudoHeaders(req)),
      endOfStream: !hasBody,
    });
    if (answer.kind === 'answered') return drained(req);
    if (answer.kind === 'unprocessed') return req;
    applyMutation(headers, answer.common?.headerMutation);
    // CONTINUE_AND_REPLACE: the answer's body is the request's; no body or trailer phase follows.
    if (answer.common?.status === 'CONTINUE_AND_REPLACE') {
      req.resume();
      return copyOf(req, headers, { kind: 'bytes', body: mutatedBody(Buffer.alloc(0), answer.common.bodyMutation) });
    }
  }
  if (!hasBody) return copyOf(req, headers, undefined);
  const phase: BodyPhase = { session: s, res, phase: 'requestBody', headers, apply: applyMutation, limit };
  let body: BodyOutcome;
  if (plan.requestBody === 'buffered' || plan.requestBody === 'partial')
    body = await bufferedBody(req, phase, plan.requestBody === 'partial');
  else if (plan.requestBody === 'streamed') body = { kind: 'stream', body: streamedBody(req, phase) };
  else body = { kind: 'stream', body: req };
  if (body.kind === 'too_large') {
    s.close();
    sendError(
      res,
      'payload_too_large',
      `the request body exceeds the ${limit} bytes the external processor may buffer`,
      {
        connection: 'close',
      },
    );
    return undefined;
  }
  if (body.kind === 'gone') {
    s.close();
    return undefined;
  }
  if (body.kind === 'answered') return drained(req);
  if (body.kind === 'unprocessed') return req;
  // Gw forwards no request trailers to backends: the processor sees them, and its mutation has nothing to change.
  const trailers = plan.requestTrailers && !s.off ? () => requestTrailers(s, req, res) : undefined;
  if (body.kind === 'bytes' && trailers) await trailers();
  if (res.writableEnded) return undefined;
  return copyOf(req, headers, body, body.kind === 'stream' ? trailers : undefined);
}

/** The client's trailers, once its body is read: sent when there are any. */
async function requestTrailers(s: ExtProcSession, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (Object.keys(req.trailers).length === 0) return;
  await s.ask(res, 'requestTrailers', { trailers: headerMapOf(req.trailers) });
}

/** The client has its answer: its body is read to the end and dropped. */
function drained(req: IncomingMessage): undefined {
  req.resume();
  return undefined;
}

/**
 * The request as the next stages see it: processed headers, and the processed body with framing to match.
 * Also the A2A stage's, which reads the body and hands on a copy carrying it (src/proxy/a2a/a2a-stage.ts).
 */
export function copyOf(
  req: IncomingMessage,
  headers: IncomingMessage['headers'],
  body: { kind: 'bytes'; body: Buffer } | { kind: 'stream'; body: Readable } | undefined,
  /** Awaited when a streamed body ends, before the copy ends (the trailer phase). */
  beforeEnd?: () => Promise<void>,
): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  if (body?.kind === 'bytes') {
    delete headers['transfer-encoding'];
    headers['content-length'] = String(body.body.length);
  } else if (body?.kind === 'stream' && (body.body !== req || headers['content-length'] === undefined)) {
    // A new body, or the client's own without a length (an HTTP/2 stream): framed as chunked from here on.
    delete headers['content-length'];
    headers['transfer-encoding'] = 'chunked';
  }
  Object.assign(copy, {
    method: req.method,
    url: req.url,
    headers,
    rawHeaders: req.rawHeaders,
    httpVersion: req.httpVersion,
    httpVersionMajor: req.httpVersionMajor,
    httpVersionMinor: req.httpVersionMinor,
  });
  if (!body) {
    copy.push(null);
    Object.assign(copy, { complete: true });
  } else if (body.kind === 'bytes') {
    copy.push(body.body);
    copy.push(null);
    Object.assign(copy, { complete: true });
  } else {
    const src = body.body;
    copy._read = () => src.resume();
    src.on('data', (c: Buffer) => {
      if (!copy.push(c)) src.pause();
    });
    src.once('end', () => {
      void (beforeEnd?.() ?? Promise.resolve()).then(() => {
        Object.assign(copy, { complete: true });
        copy.push(null);
      });
    });
    src.once('error', (err) => copy.destroy(err));
  }
  return copy;
}
