// GET on the MCP endpoint: the session's server-to-client stream, and resuming any of the session's
// streams with Last-Event-ID (events the client missed are replayed from the session's buffer).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from '../http/http-error.js';
import { acceptance } from './request.js';
import type { McpSession } from './session.js';
import { findSession } from './session-resume.js';
import type { EndpointContext, McpRoute } from './route.js';
import { SseStream, parseEventId, replayBuffer } from './sse-stream.js';

export async function handleGet(
  req: IncomingMessage,
  res: ServerResponse,
  route: McpRoute,
  ctx: EndpointContext,
  claims: Record<string, unknown> | null,
): Promise<void> {
  if ((req.headers.accept ?? '') === '' || !acceptance(req.headers.accept ?? '').sse) {
    sendError(res, 'not_acceptable', 'the GET stream needs accept: text/event-stream');
    return;
  }
  const session = await findSession(req, res, route, ctx, claims);
  if (!session) return;
  const last = req.headers['last-event-id'];
  if (typeof last === 'string' && last !== '') {
    resume(res, session, last);
    return;
  }
  if (session.standalone?.open) {
    sendError(res, 'conflict', 'the session already has an open GET stream');
    return;
  }
  const stream = session.getStream();
  stream.start(res);
  serveStandalone(res, stream);
}

function resume(res: ServerResponse, session: McpSession, last: string): void {
  const at = parseEventId(last);
  if (!at || !session.events?.issued(at.seq)) {
    sendError(res, 'not_found', 'the last-event-id is not an event id of this session');
    return;
  }
  // A stream still running (a call in flight, or the GET stream) continues on this response; a
  // finished one is replayed and ended.
  const live = at.stream === 0 ? session.getStream() : session.streams.get(at.stream);
  const stream = live ?? Object.assign(new SseStream(at.stream, session.events, session.id), { finished: true });
  stream.start(res);
  if (!stream.replay(res, at.seq)) {
    session.log.warn(
      { lastEventId: last, bufferEvents: replayBuffer.events, bufferBytes: replayBuffer.bytes },
      "some events after the client's last event id were dropped from the replay buffer",
    );
  }
  if (stream.finished) {
    res.end();
    return;
  }
  if (at.stream === 0) serveStandalone(res, stream);
  else stream.attach(res);
}

function serveStandalone(res: ServerResponse, stream: SseStream): void {
  stream.attach(res);
  // Comments keep idle intermediaries from cutting the stream.
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), 25_000);
  keepalive.unref();
  res.on('close', () => clearInterval(keepalive));
}
