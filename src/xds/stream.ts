// One incoming DeltaResources call, from admission to its end: refuse it while the server is not
// ready or shutting down, check the proxy's token and the gateway it asks for, then hand the
// subscribed connection its first push and every ACK or NACK. The server owns the connection registry.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { ProxyConnection, ReplyOutcome } from './connection.js';
import type { XdsMetrics } from './metrics.js';
import { AUTHORIZATION_HEADER, gatewayKey, type DeltaRequest, type DeltaResponse } from './protocol.js';

export type XdsCall = grpc.ServerDuplexStream<DeltaRequest, DeltaResponse>;

/** Who a proxy is, as the token says (a ServiceAccount in a cluster). */
export interface ProxyIdentity {
  namespace: string;
  serviceAccount: string;
}

export interface StreamDeps {
  log: Logger;
  metrics: XdsMetrics;
  /** Why no stream is taken now (shutting down, caches not synced), or undefined. */
  unavailable: () => { reason: string; details: string } | undefined;
  authenticate?: (token: string) => Promise<ProxyIdentity | null>;
  authorize: (identity: ProxyIdentity, gateway: string) => boolean;
  /** Registers a subscribed proxy; the server sends its first push. */
  attach: (call: XdsCall, gateway: string, pod: string, held: Record<string, string>) => ProxyConnection;
  detach: (conn: ProxyConnection) => void;
  replied: (conn: ProxyConnection, outcome: ReplyOutcome) => void;
}

function bearerToken(values: grpc.MetadataValue[]): string | undefined {
  const v = values[0];
  if (typeof v !== 'string') return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(v);
  return m?.[1];
}

/** Serves one call; every way it can end goes through `finish`, once. */
export function handleStream(call: XdsCall, deps: StreamDeps): void {
  const { log, metrics } = deps;
  const peer = call.getPeer();
  let conn: ProxyConnection | undefined;
  let done = false;
  const refuse = (reason: string, code: grpc.status, details: string, fields: object = {}) => {
    if (done) return;
    done = true;
    metrics.refused.inc({ reason });
    log.info({ peer, reason, ...fields }, `xds stream refused: ${details}`);
    call.emit('error', { code, details });
  };
  const unavailable = deps.unavailable();
  if (unavailable) return refuse(unavailable.reason, grpc.status.UNAVAILABLE, unavailable.details);
  let identity: Promise<ProxyIdentity | null> | undefined;
  if (deps.authenticate) {
    const token = bearerToken(call.metadata.get(AUTHORIZATION_HEADER));
    if (!token)
      return refuse('unauthenticated', grpc.status.UNAUTHENTICATED, 'missing bearer token in metadata "authorization"');
    identity = deps.authenticate(token);
    identity.catch(() => undefined); // handled where awaited; avoids an unhandled rejection before then
  }
  const finish = () => {
    done = true;
    if (conn) deps.detach(conn);
    conn = undefined;
  };
  const subscribe = async (req: DeltaRequest) => {
    const target = await admitGateway(req, peer, identity, deps, refuse);
    if (!target || done) return;
    conn = deps.attach(call, target.gateway, target.pod, req.initialResourceVersions ?? {});
  };
  const onRequest = (req: DeltaRequest): Promise<void> | void => {
    if (done) return;
    if (!conn) return subscribe(req);
    const outcome = conn.reply(req);
    if (outcome) deps.replied(conn, outcome);
    else log.debug({ gateway: conn.gateway, pod: conn.pod }, 'xds reply for an unknown nonce ignored');
  };
  const failed = (err: unknown) => {
    log.error({ err, peer }, 'xds stream failed');
    if (!done) call.emit('error', { code: grpc.status.INTERNAL, details: 'internal error in the control plane' });
    finish();
  };
  // Requests are handled in order; the subscribe is async, so requests wait behind it in a chain.
  let chain = Promise.resolve();
  let queued = 0;
  call.on('data', (req: DeltaRequest) => {
    // Subscribed and nothing queued (every ACK after the first push): booked at once, no promise per ACK.
    if (conn && queued === 0) {
      try {
        onRequest(req);
      } catch (err) {
        failed(err);
      }
      return;
    }
    queued++;
    chain = chain.then(async () => {
      try {
        await onRequest(req);
      } catch (err) {
        failed(err);
      } finally {
        queued--;
      }
    });
  });
  call.on('end', () => {
    finish();
    call.end();
  });
  call.on('cancelled', finish);
  call.on('close', finish);
  call.on('error', finish);
}

type Refuse = (reason: string, code: grpc.status, details: string, fields?: object) => void;

/** The gateway a first request asks for, once the proxy's identity may read it; undefined when refused. */
async function admitGateway(
  req: DeltaRequest,
  peer: string,
  identity: Promise<ProxyIdentity | null> | undefined,
  deps: StreamDeps,
  refuse: Refuse,
): Promise<{ gateway: string; pod: string } | undefined> {
  const node = req.node;
  if (!node?.gatewayNamespace || !node.gatewayName) {
    refuse(
      'invalid',
      grpc.status.INVALID_ARGUMENT,
      'the first request must carry node.gateway_namespace and node.gateway_name',
    );
    return undefined;
  }
  const gateway = gatewayKey(node.gatewayNamespace, node.gatewayName);
  const pod = node.podName || peer;
  if (!identity) return { gateway, pod };
  let who: ProxyIdentity | null;
  try {
    who = await identity;
  } catch (err) {
    deps.log.warn({ gateway, pod, err }, 'xds token check failed');
    refuse('auth_error', grpc.status.UNAVAILABLE, 'the proxy token could not be checked; retry');
    return undefined;
  }
  if (!who) {
    refuse('unauthenticated', grpc.status.UNAUTHENTICATED, 'the proxy token is not valid', { gateway, pod });
    return undefined;
  }
  if (!deps.authorize(who, gateway)) {
    const subject = `system:serviceaccount:${who.namespace}:${who.serviceAccount}`;
    const details = `${subject} may not read the configuration of gateway ${gateway}`;
    refuse('permission_denied', grpc.status.PERMISSION_DENIED, details, { gateway, pod });
    return undefined;
  }
  return { gateway, pod };
}
