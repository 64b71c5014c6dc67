// The admin API of a proxy (docs/ui.md "API"): each entry returns plain data built by view.ts, so
// nothing here can hand a secret, a token or a session id to the browser.
import type { Registry } from 'prom-client';
import { resourcesOf } from '../../ir/load.js';
import type { Snapshot } from '../../ir/types.js';
import type { AccessTailView } from '../../ui-api/types.js';
import type { XdsClient } from '../../xds/client.js';
import type { AccessTail } from '../telemetry/access-tail.js';
import { celEvaluate, celUses, metricsView } from './live.js';
import { llmView, snapshotView, targetsView } from './view.js';
import type { AdminApi, ApiCall } from './server.js';

/** What the UI shows of the controller's stream: the last update's version and whether it was ACKed. */
export interface XdsState {
  connected: boolean;
  /** The controller's version of the last snapshot this proxy received. */
  version: string;
  ack: 'waiting' | 'ACK' | 'NACK';
  /** Resources the last update NACKed or dropped, with the reason the proxy sent back. */
  nacked: { name: string; message: string }[];
  updatedAt?: string;
}

export function trackXds(client: XdsClient, clock: () => number = Date.now): () => XdsState {
  const state: XdsState = { connected: false, version: '', ack: 'waiting', nacked: [] };
  client.on('connected', () => (state.connected = true));
  client.on('disconnected', () => (state.connected = false));
  client.on('update', (update, result) => {
    const nacked = [...result.errors, ...(result.dropped ?? [])];
    state.connected = true;
    state.version = update.systemVersion ?? state.version;
    state.ack = nacked.length > 0 ? 'NACK' : 'ACK';
    state.nacked = nacked.map((e) => ({ name: e.name, message: e.message }));
    state.updatedAt = new Date(clock()).toISOString();
  });
  return () => ({ ...state, nacked: [...state.nacked] });
}

export interface ProxySide {
  appliedSnapshot(): Snapshot | undefined;
  ejectedNow(): Set<string>;
  sessions: { size: number };
  ready: boolean;
  metrics: { registry: Registry };
  accessTail: AccessTail;
}

const EMPTY: Snapshot = { version: '', resources: [] };

/** `worker`: with --workers each worker answers on the shared admin port with its own sessions. */
export interface ProxyInfo {
  gateway: string;
  pod: string;
  version: string;
  worker?: number;
}

/** How long one `access-log` call waits for a line at most (the browser calls again at once). */
const TAIL_WAIT_MS = 15_000;

/** `access-log?after=N&wait=ms`: the tail's lines after N, waiting for one when there is none yet. */
async function accessTailView(
  runtime: ProxySide,
  snap: Snapshot,
  worker: number | null,
  call: ApiCall,
): Promise<AccessTailView> {
  const after = Number(call.query.get('after') ?? '0');
  const wait = Math.min(TAIL_WAIT_MS, Math.max(0, Number(call.query.get('wait') ?? TAIL_WAIT_MS)));
  const read = await runtime.accessTail.read(
    Number.isSafeInteger(after) && after > 0 ? after : 0,
    wait || 0,
    call.signal,
  );
  const listeners = [...resourcesOf(snap, 'listener').values()]
    .filter((l) => l.telemetry?.accessLog)
    .map((l) => l.name);
  return { ...read, listeners, worker };
}

export function proxyAdminApi(runtime: ProxySide, info: ProxyInfo, xds?: () => XdsState): AdminApi {
  const snap = (): Snapshot => runtime.appliedSnapshot() ?? EMPTY;
  return {
    overview: () => ({
      role: 'proxy',
      gateway: info.gateway,
      pod: info.pod,
      gwVersion: info.version,
      worker: info.worker ?? null,
      ready: runtime.ready,
      snapshotVersion: snap().version,
      xds: xds?.() ?? null,
    }),
    snapshot: () => snapshotView(snap()),
    mcp: () => ({
      targets: targetsView(snap(), runtime.ejectedNow()),
      sessions: { active: runtime.sessions.size, worker: info.worker ?? null },
    }),
    llm: () => llmView(snap(), runtime.ejectedNow()),
    metrics: () => metricsView(runtime.metrics.registry, info.worker ?? null),
    'access-log': (call) => accessTailView(runtime, snap(), info.worker ?? null, call),
    cel: Object.assign(() => celUses(), { post: celEvaluate }),
  };
}
