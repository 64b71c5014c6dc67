// Stateless session routing (McpBackend.session_routing STATELESS): the proxy holds nothing between
// requests. Each POST gets a throwaway session whose target connections are opened for it and
// ended after it (DELETE to streamable-HTTP targets), so any proxy replica can serve any request and
// each request may reach any target replica. No mcp-session-id is handed out; GET and DELETE get 405.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson } from '../http/http-error.js';
import { type JsonRpcMessage, isRequest, rpcError } from './jsonrpc.js';
import type { EndpointContext, McpRoute } from './route.js';
import { McpSession, supportedVersions } from './session.js';

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
    log: ctx.sessions.log.child({ route: route.name }),
    onTargetFailure: ctx.onTargetFailure,
    stateless: true,
    ...(route.security.authorize ? { authorize: route.security.authorize } : {}),
    ...(route.guardrails ? { guardrails: route.guardrails } : {}),
    ...(route.callTimeoutMs ? { callTimeoutMs: route.callTimeoutMs } : {}),
    ...(route.retry ? { retry: route.retry } : {}),
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
