// One connection from a client session to a stdio or legacy SSE target, through the MCP SDK's client
// and transports (streamable-HTTP targets are http-target.ts, without the SDK). This module loads only
// when a snapshot has such a target (lazy/mcp-client.ts). Stdio targets get their own process, whose
// stderr goes to the log and which close() always reaps.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { McpTarget } from '../../ir/types.js';
import { dialFetch, type FetchLike } from './upstream-fetch.js';
import { latestIdentity, withIdentityQuery, type TargetCredential } from './target-identity.js';
import type { UpstreamCall } from './upstream-http.js';
import { identityOfTarget, upstreamHeadersOf } from '../backend-auth.js';
import { tlsFailureReason } from '../http/upstream-tls.js';
import { targetDial } from './target-tls.js';
import type { TargetDial, Upstream } from './target-connection.js';

export async function connectUpstream(dial: TargetDial): Promise<Upstream> {
  const { target, clientInfo, capabilities, events, log } = dial;
  const transport = createTransport(target, log);
  const client = new Client(clientInfo, { capabilities });
  client.fallbackNotificationHandler = async (n) => events.onNotification(target.name, n);
  client.fallbackRequestHandler = async (r, extra) => events.onRequest(target.name, r, extra.signal);
  const upstream: Upstream = {
    name: target.name,
    call: sdkCaller(client),
    notify: (method) => client.notification({ method }),
    capabilities: {},
    serverInfo: undefined,
    instructions: undefined,
    alive: true,
    processLocal: true,
    sessionId: () => undefined,
    protocolVersion: () => undefined,
    close: async () => {
      upstream.alive = false;
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
  upstream.capabilities = client.getServerCapabilities() ?? {};
  upstream.serverInfo = client.getServerVersion();
  upstream.instructions = client.getInstructions();
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

/** `send` with the identity's headers and query parameter on every request (the SSE GET and the message POSTs). */
function identityFetch(send: FetchLike, identity: () => TargetCredential | undefined): FetchLike {
  return (input, init) => {
    const c = identity();
    if (!c) return send(input, init);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(c.headers)) headers.set(k, v);
    return send(withIdentityQuery(String(input), c), { ...init, headers });
  };
}

function createTransport(target: McpTarget, log: Logger): Transport {
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
  if (target.transport === 'remote' && target.remote?.protocol === 'SSE') {
    // The edge's backend.auth credential on every request; over TLS through the target's dispatcher (target-tls.ts).
    // A per-request identity (target-identity.ts) goes on the SSE GET and on every POST to the message endpoint.
    const dial = targetDial(target);
    const send: FetchLike = dial ? dialFetch(dial) : fetch;
    const identity = identityOfTarget(target) ? latestIdentity(target.name) : undefined;
    return new SSEClientTransport(new URL(target.remote.url), {
      requestInit: { headers: upstreamHeadersOf(target) },
      ...(identity ? { fetch: identityFetch(send, identity) } : dial ? { fetch: send } : {}),
    });
  }
  throw new Error(`target ${target.name} has no transport the MCP SDK client serves`);
}
