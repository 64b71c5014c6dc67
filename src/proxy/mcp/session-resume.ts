// The session a request names: held by this process, or resumed from its sealed id when another
// replica or worker began it (session-seal.ts). A forged, altered or expired id, an id of another
// route, or another subject's id is a session that does not exist: 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from '../http/http-error.js';
import { sessionHeader } from './request.js';
import { McpSession, supportedVersions, type SessionOptions } from './session.js';
import type { SessionState } from './session-seal.js';
import { clientKeyOf, shortId, subjectOf, type Refused } from './sessions.js';
import { endTargetSession } from './target-session.js';
import { childOf } from './log-children.js';
import type { EndpointContext, McpRoute } from './route.js';

/** What a session of this route is built with; `id` is '' until initialize succeeded and the id is sealed. */
export function sessionOptions(route: McpRoute, ctx: EndpointContext, id: string, stateless: boolean): SessionOptions {
  return {
    id,
    backend: route.backend,
    serverInfo: ctx.serverInfo,
    log: id
      ? ctx.sessions.log.child({ route: route.name, session: shortId(id) })
      : childOf(ctx.sessions.log, 'route', route.name),
    onTargetFailure: ctx.onTargetFailure,
    ...(ctx.onToolCall ? { onToolCall: ctx.onToolCall } : {}),
    stateless,
    ...(route.security.authorize ? { authorize: route.security.authorize } : {}),
    ...(route.guardrails ? { guardrails: route.guardrails } : {}),
    ...(route.callTimeoutMs ? { callTimeoutMs: route.callTimeoutMs } : {}),
    ...(route.targetCallTimeoutMs ? { targetCallTimeoutMs: route.targetCallTimeoutMs } : {}),
    ...(route.retry ? { retry: route.retry } : {}),
    ...(route.health ? { health: route.health } : {}),
  };
}

/**
 * The session the request names, or undefined when the answer (400, 404, 429, 503) was sent. A session this
 * process holds is found without a promise; only a resume from the sealed id waits.
 */
export function findSession(
  req: IncomingMessage,
  res: ServerResponse,
  route: McpRoute,
  ctx: EndpointContext,
  claims: Record<string, unknown> | null,
): McpSession | undefined | Promise<McpSession | undefined> {
  const id = req.headers[sessionHeader];
  if (typeof id !== 'string' || id === '') {
    sendError(res, 'bad_request', 'the mcp-session-id header is required after initialize');
    return undefined;
  }
  const held = ctx.sessions.get(id);
  if (held) return checkFound(req, res, held, claims);
  return ctx.sessions
    .resumeOnce(id, () => resume(id, route, ctx, claims, req.socket.remoteAddress))
    .then((found) => checkFound(req, res, found, claims));
}

function checkFound(
  req: IncomingMessage,
  res: ServerResponse,
  found: McpSession | Refused | undefined,
  claims: Record<string, unknown> | null,
): McpSession | undefined {
  if (found !== undefined && !(found instanceof McpSession)) {
    sendError(res, found.code, found.message, { 'retry-after': String(found.retryAfterSeconds) });
    return undefined;
  }
  // A session belongs to the subject that created it; to anyone else it does not exist.
  if (!found || (found.subject !== undefined && found.subject !== subjectOf(claims))) {
    sendError(res, 'not_found', 'the session does not exist or has ended; initialize a new one');
    return undefined;
  }
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !supportedVersions.includes(version)) {
    sendError(
      res,
      'bad_request',
      `unsupported mcp-protocol-version ${version}; supported: ${supportedVersions.join(', ')}`,
    );
    return undefined;
  }
  return found;
}

/** The sealed state of an id this route may resume for this subject; undefined otherwise. */
export function openSealed(
  id: string,
  route: McpRoute,
  ctx: EndpointContext,
  claims: Record<string, unknown> | null,
): SessionState | undefined {
  const state = ctx.sessions.sealer.open(id, ctx.sessions.now());
  if (!state || state.route !== route.name) return undefined;
  if (state.subject !== undefined && state.subject !== subjectOf(claims)) return undefined;
  return state;
}

async function resume(
  id: string,
  route: McpRoute,
  ctx: EndpointContext,
  claims: Record<string, unknown> | null,
  remoteAddress: string | undefined,
): Promise<McpSession | Refused | undefined> {
  const state = openSealed(id, route, ctx, claims);
  if (!state) return undefined;
  const admission = ctx.sessions.admit(clientKeyOf(claims, remoteAddress));
  if (!admission.ok) return admission;
  const session = new McpSession(sessionOptions(route, ctx, id, false));
  const resumed = await session.resume(state).catch(() => false);
  if (!resumed) {
    admission.reservation.cancel();
    return undefined;
  }
  admission.reservation.commit(session);
  session.log.info({ targets: state.targets.length }, 'session resumed from its sealed id');
  return session;
}

/**
 * DELETE of a session this process does not hold: its target sessions are ended without resuming it
 * first (no stdio process is started just to be stopped). False when the id opens to nothing.
 */
export async function endSealed(
  id: string,
  route: McpRoute,
  ctx: EndpointContext,
  claims: Record<string, unknown> | null,
): Promise<boolean> {
  const state = openSealed(id, route, ctx, claims);
  if (!state) return false;
  await Promise.all(
    state.targets.map((s) => {
      const t = route.backend.targets.find((x) => x.name === s.name);
      return t && s.sessionId ? endTargetSession(t, s.sessionId, s.protocolVersion) : undefined;
    }),
  );
  return true;
}
