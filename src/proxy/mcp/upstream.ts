// One connection from a client session to one MCP target, through the MCP SDK's client transports.
// Stdio targets get their own process, whose stderr goes to the log and which close() always reaps.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ResultSchema,
  type ClientCapabilities,
  type Implementation,
  type ServerCapabilities,
  type Notification,
} from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { McpTarget } from '../../ir/types.js';
import type { RetryPlan } from '../policy/traffic-policy.js';
import { retryingFetch } from './upstream-fetch.js';
import { httpCaller, type UpstreamCall } from './upstream-http.js';
import { upstreamHeadersOf } from '../backend-auth.js';
import { tlsFailureReason } from '../http/upstream-tls.js';
import { targetDial } from './target-tls.js';

export interface UpstreamEvents {
  onNotification(target: string, n: Notification): void;
  /** A server-to-client request (sampling, elicitation, roots) to pass to the downstream client. */
  onRequest(target: string, r: JSONRPCRequest, signal: AbortSignal): Promise<Record<string, unknown>>;
  onClose(target: string): void;
}

export interface Upstream {
  name: string;
  client: Client;
  /** A request to the target (the hot path): direct HTTP for streamable-HTTP targets, the SDK client otherwise. */
  call: UpstreamCall;
  capabilities: ServerCapabilities;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
  alive: boolean;
  /** A stdio process or a legacy SSE connection: its session cannot be resumed elsewhere. */
  processLocal: boolean;
  /** The target's session id and protocol version (streamable-HTTP targets), for sealing. */
  sessionId(): string | undefined;
  protocolVersion(): string | undefined;
  /** `end` also ends the target session (DELETE); without it only this process lets go (another replica may hold it). */
  close(end?: boolean): Promise<void>;
}

/** A target session another replica or worker began: attach to it instead of initializing. */
export interface ResumeAt {
  sessionId: string;
  protocolVersion: string | undefined;
  capabilities: ServerCapabilities;
}

export async function connectUpstream(
  target: McpTarget,
  clientInfo: Implementation,
  capabilities: ClientCapabilities,
  events: UpstreamEvents,
  log: Logger,
  retry?: RetryPlan,
  resume?: ResumeAt,
): Promise<Upstream> {
  const onRetry = (tried: number, why: string): void =>
    log.debug({ target: target.name, tried, why }, 'retrying request to target');
  const transport = createTransport(target, log, retry, onRetry, resume?.sessionId);
  if (resume?.protocolVersion && transport instanceof StreamableHTTPClientTransport)
    transport.setProtocolVersion(resume.protocolVersion);
  const client = new Client(clientInfo, { capabilities });
  client.fallbackNotificationHandler = async (n) => events.onNotification(target.name, n);
  client.fallbackRequestHandler = async (r, extra) => events.onRequest(target.name, r, extra.signal);
  const upstream: Upstream = {
    name: target.name,
    client,
    call: sdkCaller(client),
    capabilities: {},
    serverInfo: undefined,
    instructions: undefined,
    alive: true,
    processLocal: !(transport instanceof StreamableHTTPClientTransport),
    sessionId: () => (transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined),
    protocolVersion: () => (transport instanceof StreamableHTTPClientTransport ? transport.protocolVersion : undefined),
    close: async (end = true) => {
      upstream.alive = false;
      // The spec asks a client that is done with a session to end it; a target that does not allow it answers 405.
      if (end && transport instanceof StreamableHTTPClientTransport && transport.sessionId)
        await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
  client.onclose = () => {
    if (!upstream.alive) return;
    upstream.alive = false;
    log.warn({ target: target.name }, 'target connection closed');
    events.onClose(target.name);
  };
  try {
    // A target that never answers initialize must not hold the client's initialize for the SDK default minute.
    await client.connect(transport, { timeout: 30_000 });
  } catch (err) {
    await upstream.close();
    // Node's TLS errors quote the certificate's names; say what failed the way static backends do.
    const tlsWhy = targetDial(target) ? tlsFailureReason(err) : undefined;
    throw tlsWhy ? new Error(`TLS to target ${target.name} failed: ${tlsWhy}`) : err;
  }
  // A resumed session skipped initialize (the SDK client does when the transport has a session id).
  upstream.capabilities = client.getServerCapabilities() ?? resume?.capabilities ?? {};
  upstream.serverInfo = client.getServerVersion();
  upstream.instructions = client.getInstructions();
  if (transport instanceof StreamableHTTPClientTransport && target.remote) {
    const dial = targetDial(target);
    upstream.call = httpCaller({
      url: new URL(target.remote.url),
      sessionId: () => transport.sessionId,
      protocolVersion: () => transport.protocolVersion,
      onOther: (m) => transport.onmessage?.(m),
      cancel: (requestId, reason) =>
        void client
          .notification({ method: 'notifications/cancelled', params: { requestId, reason } })
          .catch(() => undefined),
      ...(retry ? { retry, onRetry } : {}),
      headers: upstreamHeadersOf(target),
      target: target.name,
      ...(dial ? { dispatcher: dial } : {}),
    });
  }
  return upstream;
}

function sdkCaller(client: Client): UpstreamCall {
  return (method, params, { cancel, timeoutMs, onprogress }) =>
    client.request({ method, params }, ResultSchema, {
      timeout: timeoutMs,
      resetTimeoutOnProgress: true,
      ...(cancel ? { signal: cancel.signal } : {}),
      ...(onprogress ? { onprogress } : {}),
    });
}

function createTransport(
  target: McpTarget,
  log: Logger,
  retry: RetryPlan | undefined,
  onRetry: (tried: number, why: string) => void,
  sessionId: string | undefined,
): Transport {
  if (target.transport === 'stdio' && target.stdio) {
    const t = new StdioClientTransport({
      command: target.stdio.cmd,
      args: target.stdio.args,
      env: { ...getDefaultEnvironment(), ...target.stdio.env },
      stderr: 'pipe',
    });
    const stderr = t.stderr;
    if (stderr instanceof Readable) {
      createInterface({ input: stderr }).on('line', (line) =>
        log.info({ target: target.name, stream: 'stderr' }, line),
      );
    }
    return t;
  }
  if (target.transport === 'remote' && target.remote) {
    const url = new URL(target.remote.url);
    // The edge's backend.auth credential, on every request the transport sends (the SSE stream's GET included).
    const requestInit = { headers: upstreamHeadersOf(target) };
    // Over TLS every request and stream of the target goes through its TLS dispatcher (target-tls.ts).
    const dial = targetDial(target);
    return target.remote.protocol === 'SSE'
      ? new SSEClientTransport(url, {
          requestInit,
          ...(dial ? { fetch: retryingFetch(undefined, undefined, dial) } : {}),
        })
      : new StreamableHTTPClientTransport(url, {
          fetch: retryingFetch(retry, onRetry, dial),
          requestInit,
          ...(sessionId ? { sessionId } : {}),
        });
  }
  throw new Error(`target ${target.name} has no transport`);
}
