// Requests about a target session the proxy may not hold a connection for: whether the target still
// knows it (a 404 from one target of a session is a restart only if another still knows its own), and
// ending it (DELETE on a replica that never resumed the session).
import { request } from '../http/undici.js';
import type { McpTarget } from '../../ir/types.js';
import { upstreamHeadersOf } from '../backend-auth.js';
import { requestCredential, requestIdentity, withIdentityQuery } from './target-identity.js';
import { targetDial } from './target-tls.js';
import { upstreamAgent } from './upstream-fetch.js';
import { sendWithRetry } from './upstream-retry.js';
import type { RetryPlan } from '../policy/traffic-policy.js';

function headersFor(target: McpTarget, sessionId: string, protocolVersion: string | undefined): Record<string, string> {
  return {
    ...upstreamHeadersOf(target),
    ...requestIdentity(target.name),
    'mcp-session-id': sessionId,
    ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
  };
}

/** True when the target answers a ping in this session with anything but 404 (or cannot be asked: false). */
export async function targetKnowsSession(
  target: McpTarget,
  sessionId: string,
  protocolVersion: string | undefined,
): Promise<boolean> {
  if (!target.remote) return false;
  try {
    const res = await request(withIdentityQuery(target.remote.url, requestCredential(target.name)), {
      method: 'POST',
      headers: {
        ...headersFor(target, sessionId, protocolVersion),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'gw-probe', method: 'ping' }),
      dispatcher: targetDial(target)?.() ?? upstreamAgent,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    res.body.resume();
    return res.statusCode !== 404;
  } catch {
    return false;
  }
}

/**
 * DELETE of a target session; a target that does not allow it (405) or is gone is not an error here.
 * `retry`: the route's `traffic.retry` (a DELETE may be repeated, so it is treated as a read).
 */
export async function endTargetSession(
  target: McpTarget,
  sessionId: string,
  protocolVersion: string | undefined,
  retry?: RetryPlan,
  identity?: Record<string, string>,
): Promise<void> {
  const remote = target.remote;
  if (!remote) return;
  const send = () =>
    request(withIdentityQuery(remote.url, requestCredential(target.name)), {
      method: 'DELETE',
      headers: { ...headersFor(target, sessionId, protocolVersion), ...identity },
      dispatcher: targetDial(target)?.() ?? upstreamAgent,
      headersTimeout: 10_000,
    });
  try {
    const res = await (retry
      ? sendWithRetry(send, { plan: retry, method: 'ping', timeoutMs: undefined, signal: undefined })
      : send());
    res.body.resume();
  } catch {
    // the target is unreachable: its session ends with it
  }
}
