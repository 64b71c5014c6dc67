// Sessions that live for one POST. Stateless session routing (McpBackend.session_routing STATELESS): the
// proxy holds nothing between requests. Each POST gets a throwaway session whose target connections are
// opened for it and ended after it (DELETE to streamable-HTTP targets), so any proxy replica can serve any
// request and each request may reach any target replica. No mcp-session-id is handed out; GET and DELETE
// get 405. A 2026-07-28 client's requests (on any route) are served the same way: `modernSession`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson, sendProxyError } from '../http/http-error.js';
import { ProxyError } from '../proxy-error.js';
import { type JsonRpcMessage, isRequest, rpcError } from './jsonrpc.js';
import { admitModern, modernVersion } from './modern.js';
import type { EndpointContext, McpRoute } from './route.js';
import { McpSession, supportedVersions } from './session.js';
import { sessionOptions } from './session-resume.js';
import { openContinuation } from './input-bridge.js';
import type { ResumeAt } from './target-connection.js';
import { subjectOf } from './sessions.js';
import { childOf } from './log-children.js';

export function isStateless(route: McpRoute): boolean {
  return route.backend.sessionRouting === 'STATELESS';
}

/** The session serving one request, or undefined when the answer was already sent. */
export async function statelessSession(
  req: IncomingMessage,
  res: ServerResponse,
  route: McpRoute,
  ctx: EndpointContext,
  messages: JsonRpcMessage[],
): Promise<McpSession | undefined> {
  const header = req.headers['mcp-protocol-version'];
  // Without the header the transport specification says to assume 2025-03-26.
  const version = typeof header === 'string' ? header : '2025-03-26';
  if (!supportedVersions.includes(version)) {
    sendError(
      res,
      'bad_request',
      `unsupported mcp-protocol-version ${version}; supported: ${supportedVersions.join(', ')}`,
    );
    return undefined;
  }
  const session = new McpSession({
    id: '',
    backend: route.backend,
    serverInfo: ctx.serverInfo,
    log: childOf(ctx.sessions.log, 'route', route.name),
    onTargetFailure: ctx.onTargetFailure,
    stateless: true,
    ...(route.security.authorize ? { authorize: route.security.authorize } : {}),
    ...(route.guardrails ? { guardrails: route.guardrails } : {}),
    ...(route.callTimeoutMs ? { callTimeoutMs: route.callTimeoutMs } : {}),
    ...(route.targetCallTimeoutMs ? { targetCallTimeoutMs: route.targetCallTimeoutMs } : {}),
    ...(route.retry ? { retry: route.retry } : {}),
    ...(route.health ? { health: route.health } : {}),
  });
  const first = messages.find(isRequest);
  if (!first) return session; // notifications and responses only: nothing to connect for
  // The client's capabilities are not known here, so targets see none and send no requests of their own.
  const out = await session.initialize({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'gw-stateless', version: '0' } },
  });
  if ('error' in out) {
    sendJson(res, 200, rpcError(first.id, out.error.code, out.error.message));
    return undefined;
  }
  return session;
}

/**
 * The session serving one request of a 2026-07-28 client, or undefined when the answer was already sent:
 * the envelope stands in for initialize, the request is checked first (`admitModern`: headers, version,
 * envelope, removed methods), and each target is reached in its own generation (http-target.ts: server/discover, else a
 * 2025 session initialized for this request and ended after it).
 */
export async function modernSession(
  req: IncomingMessage,
  res: ServerResponse,
  route: McpRoute,
  ctx: EndpointContext,
  m: JsonRpcMessage,
  claims: Record<string, unknown> | null,
): Promise<McpSession | undefined> {
  // A notification needs no target: its session connects nothing and only takes the notification.
  const bare = {
    envelope: {
      protocolVersion: modernVersion,
      clientCapabilities: {},
      clientInfo: { name: 'gw-client', version: '0' },
    },
    listening: false,
  };
  if (!isRequest(m)) return new McpSession({ ...sessionOptions(route, ctx, '', true), modern: bare });
  const envelope = admitModern(m, req.headers, [modernVersion, ...supportedVersions]);
  if ('status' in envelope) {
    sendJson(res, envelope.status, envelope.answer);
    return undefined;
  }
  const modern = { envelope, listening: m.method === 'subscriptions/listen' };
  const { backend, resumeOf } = continuedAt(route, ctx, m.params?.requestState);
  const options = {
    ...sessionOptions(route, ctx, '', true),
    backend,
    modern,
    bridge: { sealer: ctx.sessions.sealer, held: ctx.sessions.held, answerWithinMs: ctx.sessions.inputTimeoutMs },
  };
  const session = new McpSession(options);
  session.subject = subjectOf(claims); // a target's private discover answer is kept for this subject only (discover-cache.ts)
  try {
    const failed = await session.connect(m.id, resumeOf);
    if (!failed) return session;
    sendJson(res, 200, failed);
  } catch (err) {
    if (!(err instanceof ProxyError)) throw err;
    sendProxyError(res, err); // only busy targets failed: 503 with Retry-After
  }
  return undefined;
}

/**
 * The targets a request connects: all, except for a retry answering a 2025 target's requests for input
 * (input-bridge.ts), which needs only that target, attached to the target session its requestState names,
 * or none when this replica holds the call.
 */
function continuedAt(
  route: McpRoute,
  ctx: EndpointContext,
  state: unknown,
): { backend: McpRoute['backend']; resumeOf: (name: string) => ResumeAt | undefined } {
  const c = openContinuation(ctx.sessions.sealer, state);
  if (!c) return { backend: route.backend, resumeOf: () => undefined };
  const targets = c.held === undefined ? route.backend.targets.filter((t) => t.name === c.target) : [];
  const at: ResumeAt = { sessionId: c.sessionId, protocolVersion: c.protocolVersion, capabilities: {} };
  return { backend: { ...route.backend, targets }, resumeOf: (name) => (name === c.target ? at : undefined) };
}
