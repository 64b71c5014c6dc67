// A Gateway's listeners (its own, then those of accepted ListenerSets) with their conditions.
import { lookup, read, type Ctx } from '../objects/context.js';
import { listenerTls } from './certificates.js';
import { condition, type Condition, type ListenerStatus } from '../status/conditions.js';
import { selectorMatches } from '../objects/read.js';
import { allowedKinds, listenerOwnerSpec, type ListenerSpec } from './listener-spec.js';
import type { ListenerTlsInput } from '../../ir/types.js';
import { GROUP, objectKey, type StoredObject } from '../objects/types.js';
import { mergedRefusals, uniqueRefusals, type IrRefusal } from '../../coverage/effective.js';
import type { MergeResult } from '../policies/policy-merge.js';
import type { ListenerLimitsInput } from '../../ir/types.js';
import type { Frontend, FrontendHTTP } from '../../api/frontend.js';
import { parseDurationMs } from '../../ir/duration.js';
import { parseByteSize } from '../policies/byte-size.js';

/**
 * `Listener.refusals`: the refused frontend fields of a listener's merged frontend policy (issue 14).
 * translate.ts builds the IR listener: `const r = listenerRefusals(fe); if (r.length) il.refusals = r;`
 */
export function listenerRefusals(frontend: MergeResult): IrRefusal[] {
  return uniqueRefusals(mergedRefusals(frontend));
}

export interface ListenerInfo {
  /** IR name: `ns/gateway/listener` or `ns/gateway/ListenerSet/lsns/ls/listener`. */
  irName: string;
  name: string;
  port: number;
  protocol: string;
  hostname?: string;
  owner: StoredObject;
  allowedRoutes?: Record<string, unknown>;
  /** Accepted and not conflicted: routes may attach and the proxy gets it. */
  programmed: boolean;
  status: ListenerStatus;
  /** HTTPS listeners whose certificates resolved. */
  tls?: ListenerTlsInput;
}

export interface ListenerSetInfo {
  entry: StoredObject;
  accepted: boolean;
  message: string;
  listeners: ListenerInfo[];
}

const SUPPORTED_ROUTE_KINDS = ['HTTPRoute', 'GRPCRoute'];

export function collectListeners(
  ctx: Ctx,
  gw: StoredObject,
): { listeners: ListenerInfo[]; listenerSets: ListenerSetInfo[] } {
  const spec = listenerOwnerSpec(gw);
  const listeners = (spec.listeners ?? []).map((l) => listenerInfo(ctx, gw, gw.key, l));
  const listenerSets: ListenerSetInfo[] = [];
  const allowed = spec.allowedListeners?.namespaces ?? {};
  for (const lsKey of lookup(ctx, 'listenerSetsByGateway', objectKey('Gateway', gw.key))) {
    const ls = read(ctx, 'ListenerSet', lsKey);
    if (!ls) continue;
    const from = allowed.from ?? 'None';
    const lsNs = ls.obj.metadata.namespace ?? '';
    const gwNs = gw.obj.metadata.namespace ?? '';
    const ok =
      from === 'All' ||
      (from === 'Same' && lsNs === gwNs) ||
      (from === 'Selector' && selectorMatches(allowed.selector, read(ctx, 'Namespace', lsNs)?.obj.metadata.labels));
    const info: ListenerSetInfo = {
      entry: ls,
      accepted: ok,
      message: ok
        ? 'accepted by the parent Gateway'
        : `Gateway ${gw.key} does not allow ListenerSets from namespace ${lsNs} (allowedListeners.namespaces.from is ${from})`,
      listeners: ok
        ? (listenerOwnerSpec(ls).listeners ?? []).map((l) =>
            listenerInfo(ctx, ls, `${gw.key}/ListenerSet/${ls.key}`, l),
          )
        : [],
    };
    listenerSets.push(info);
    listeners.push(...info.listeners);
  }
  markConflicts(listeners, ctx.options.now);
  return { listeners, listenerSets };
}

function listenerInfo(ctx: Ctx, owner: StoredObject, prefix: string, l: ListenerSpec): ListenerInfo {
  const gen = owner.obj.metadata.generation ?? 0;
  const now = ctx.options.now;
  const name = l.name ?? '';
  const protocol = l.protocol ?? 'HTTP';
  const conds: Condition[] = [];
  let programmed = true;
  const listed = allowedKinds(l.allowedRoutes);
  const kinds = (listed.length ? listed : SUPPORTED_ROUTE_KINDS).filter((k) => SUPPORTED_ROUTE_KINDS.includes(k));
  const supported = protocol === 'HTTP' || protocol === 'HTTPS';
  const tls = supported ? listenerTls(ctx, owner, protocol, l) : undefined;
  const tlsProblem = tls && !tls.ok ? tls.problem : undefined;
  if (!supported) {
    conds.push(condition('Accepted', false, 'UnsupportedProtocol', unsupportedProtocolMessage(protocol), gen, now));
    programmed = false;
  } else if (tlsProblem?.condition === 'Accepted') {
    conds.push(condition('Accepted', false, tlsProblem.reason, tlsProblem.message, gen, now));
    programmed = false;
  } else {
    conds.push(condition('Accepted', true, 'Accepted', 'listener is valid', gen, now));
  }
  const refProblem = tlsProblem?.condition === 'ResolvedRefs' ? tlsProblem : undefined;
  if (refProblem) programmed = false;
  conds.push(
    condition(
      'ResolvedRefs',
      !refProblem,
      refProblem?.reason ?? 'ResolvedRefs',
      refProblem?.message ?? 'all references resolved',
      gen,
      now,
    ),
  );
  const info: ListenerInfo = {
    irName: `${prefix}/${name}`,
    name,
    port: l.port ?? 0,
    protocol,
    owner,
    programmed,
    status: {
      name,
      attachedRoutes: 0,
      supportedKinds: kinds.map((kind) => ({ group: GROUP.gateway, kind })),
      conditions: conds,
    },
  };
  if (l.hostname !== undefined) info.hostname = l.hostname;
  if (tls?.ok && tls.tls) info.tls = tls.tls;
  if (l.allowedRoutes) info.allowedRoutes = l.allowedRoutes;
  return info;
}

function unsupportedProtocolMessage(protocol: string): string {
  // TLS listeners would need TLSRoute and SNI passthrough, which the proxy does not do.
  if (protocol === 'TLS')
    return 'protocol TLS (TLSRoute, TLS passthrough) is not supported; use HTTPS to terminate TLS at the gateway';
  return `protocol ${protocol} is not supported; use HTTP or HTTPS`;
}

/** Same port with another protocol, or same port and host name: the first listener keeps it, later ones are Conflicted. */
function markConflicts(listeners: ListenerInfo[], now: string): void {
  const seen = new Map<string, ListenerInfo>();
  const portProtocol = new Map<number, ListenerInfo>();
  for (const l of listeners) {
    if (!l.programmed) continue;
    const k = `${l.port}|${l.hostname ?? ''}`;
    const first = seen.get(k);
    const gen = l.owner.obj.metadata.generation ?? 0;
    const other = portProtocol.get(l.port);
    // One port is either plain HTTP or TLS: the proxy cannot tell them apart before reading bytes.
    if (other && other.protocol !== l.protocol) {
      l.programmed = false;
      l.status.conditions.push(
        condition(
          'Conflicted',
          true,
          'ProtocolConflict',
          `listener ${other.irName} already serves port ${l.port} with protocol ${other.protocol}`,
          gen,
          now,
        ),
      );
    } else if (first) {
      l.programmed = false;
      l.status.conditions.push(
        condition(
          'Conflicted',
          true,
          'HostnameConflict',
          `listener ${first.irName} already serves port ${l.port} for host ${l.hostname ?? '*'}`,
          gen,
          now,
        ),
      );
    } else {
      seen.set(k, l);
      if (!other) portProtocol.set(l.port, l);
      l.status.conditions.push(condition('Conflicted', false, 'NoConflicts', 'no conflicts', gen, now));
    }
  }
  for (const l of listeners) {
    const gen = l.owner.obj.metadata.generation ?? 0;
    l.status.conditions.push(
      condition(
        'Programmed',
        l.programmed,
        l.programmed ? 'Programmed' : 'Invalid',
        l.programmed ? 'listener is programmed' : 'listener is not programmed',
        gen,
        now,
      ),
    );
  }
}

/** `Listener.limits`: the caps and connection settings of the merged frontend policy the proxy enforces (undefined when none is set). */
export function listenerLimits(frontend: MergeResult): ListenerLimitsInput | undefined {
  const http = frontend.fields['frontend.http'] as FrontendHTTP | undefined;
  const tcp = frontend.fields['frontend.tcp'] as NonNullable<Frontend['tcp']> | undefined;
  const ms = (d: string | undefined): number | undefined => (d ? parseDurationMs(d) || undefined : undefined);
  // Any keepalive field turns keepalive on; the others take the schema's defaults (180s, 180s, 9 probes).
  const ka = tcp?.keepalive;
  const keepalive = ka ? ms(ka.time ?? '180s') : undefined;
  const idle = ms(http?.http1IdleTimeout);
  const age = ms(http?.maxConnectionDuration);
  const limits: ListenerLimitsInput = {
    ...(http?.maxConcurrentRequests ? { maxConcurrentRequests: http.maxConcurrentRequests } : {}),
    ...(tcp?.maxConnections ? { maxConnections: tcp.maxConnections } : {}),
    ...(keepalive ? { keepaliveTimeMs: keepalive } : {}),
    ...(ka?.interval ? { keepaliveIntervalMs: ms(ka.interval) } : {}),
    ...(ka?.retries ? { keepaliveProbes: ka.retries } : {}),
    ...(idle ? { http1IdleTimeoutMs: idle } : {}),
    ...(age ? { maxConnectionDurationMs: age } : {}),
    ...(http?.http1MaxHeaders ? { http1MaxHeaders: http.http1MaxHeaders } : {}),
    ...(http?.http1HeaderCase === 'Preserve' ? { http1PreserveHeaderCase: true } : {}),
    ...http2Limits(http),
  };
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/** The HTTP/2 fields of `Listener.limits` (sizes in bytes, durations in ms). */
function http2Limits(http: FrontendHTTP | undefined): ListenerLimitsInput {
  if (!http) return {};
  const bytes = (v: string | number | undefined): number | undefined =>
    v === undefined ? undefined : parseByteSize(v);
  const ms = (d: string | undefined): number | undefined => (d ? parseDurationMs(d) || undefined : undefined);
  const out: ListenerLimitsInput = {
    http2WindowSize: bytes(http.http2WindowSize),
    http2ConnectionWindowSize: bytes(http.http2ConnectionWindowSize),
    http2FrameSize: bytes(http.http2FrameSize),
    http2MaxHeaderSize: bytes(http.http2MaxHeaderSize),
    maxBufferSize: bytes(http.maxBufferSize),
    http2KeepaliveIntervalMs: ms(http.http2KeepaliveInterval),
    http2KeepaliveTimeoutMs: ms(http.http2KeepaliveTimeout),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v)) as ListenerLimitsInput;
}
