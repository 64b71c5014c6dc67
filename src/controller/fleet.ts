// The controller's fleet view (docs/ui.md "Fleet view"): its gateways, the proxies subscribed to each
// over xDS (version applied, last ACK or NACK with the proxy's reason) and each gateway's translation
// refusals. Built by picking named fields, like the proxy's view: no policy value, Secret or token.
// The admin server itself is the proxy's (src/proxy/admin/server.ts), started by the CLI and handed in.
import type { Logger } from 'pino';
import type { RefusalInput, UnservedBackendInput } from '../ir/types.js';
import type { BuiltResource } from '../translate/built-ir.js';
import type { ConnectedProxy } from '../xds/server.js';
import type { ControllerSource } from './snapshot-source.js';
import { resourceName } from './snapshot-source.js';

/** Read-only API entries, each returning plain data safe to show (the admin server's `AdminApi`). */
export type FleetApi = Record<string, () => unknown>;

/** Starts the admin address with `api`; undefined when the UI is off (or its optional default port is taken). */
export type StartUi = (api: FleetApi) => Promise<{ port: number; close(): Promise<void> } | undefined>;

export interface FleetRefusal {
  resource: string;
  field: string;
  source: string;
  reason: string;
  security: boolean;
}

export interface FleetProxy {
  pod: string;
  peer: string;
  since: string;
  applied: string;
  current: string;
  lastReply: ConnectedProxy['lastReply'];
  refusals: ConnectedProxy['refusals'];
}

export interface FleetGateway {
  name: string;
  /** The version proxies of this gateway are sent now ('' while no proxy asked for it). */
  version: string;
  resources: number;
  proxies: FleetProxy[];
  refusals: FleetRefusal[];
  /** Backend refs a route leaves out, with the reason (a refusal of the edge, not of a field). */
  unserved: { resource: string; reason: string; message: string }[];
}

interface Body {
  refusals?: RefusalInput[] | null;
  unservedBackends?: UnservedBackendInput[] | null;
}

const bodyOf = (r: BuiltResource): Body => (r as unknown as Record<string, Body>)[r.kind] ?? {};

function refusalsOf(name: string, r: BuiltResource): FleetRefusal[] {
  return (bodyOf(r).refusals ?? []).map((x) => ({
    resource: name,
    field: x.field ?? '',
    source: x.source ?? '',
    reason: x.reason ?? '',
    security: x.security ?? false,
  }));
}

function unservedOf(name: string, r: BuiltResource): FleetGateway['unserved'] {
  return (bodyOf(r).unservedBackends ?? []).map((u) => ({
    resource: name,
    reason: u.reason ?? '',
    message: u.message ?? '',
  }));
}

function proxyView(p: ConnectedProxy): FleetProxy {
  return {
    pod: p.pod,
    peer: p.peer,
    since: p.since,
    applied: p.applied,
    current: p.current,
    lastReply: p.lastReply,
    refusals: p.refusals,
  };
}

/** Every gateway with a snapshot or a subscribed proxy, sorted by name. */
export function fleetView(
  built: ReadonlyMap<string, ReadonlyMap<string, BuiltResource>>,
  proxies: ConnectedProxy[],
): FleetGateway[] {
  const names = new Set([...built.keys(), ...proxies.map((p) => p.gateway)]);
  return [...names].sort().map((name) => {
    const resources = [...(built.get(name)?.values() ?? [])];
    const mine = proxies.filter((p) => p.gateway === name).sort((a, b) => a.pod.localeCompare(b.pod));
    return {
      name,
      version: mine[0]?.current ?? '',
      resources: resources.length,
      proxies: mine.map(proxyView),
      refusals: resources.flatMap((r) => refusalsOf(resourceName(r), r)),
      unserved: resources.flatMap((r) => unservedOf(resourceName(r), r)),
    };
  });
}

export interface FleetInfo {
  mode: 'local' | 'cluster';
  gwVersion: string;
}

export function fleetApi(
  source: Pick<ControllerSource, 'built'>,
  proxies: () => ConnectedProxy[],
  info: FleetInfo,
): FleetApi {
  return {
    overview: () => ({ role: 'controller', mode: info.mode, gwVersion: info.gwVersion }),
    fleet: () => ({ gateways: fleetView(source.built(), proxies()) }),
  };
}

/** What the CLI hands the controller: the admin server's starter (the proxy's, which the controller may not import). */
export interface ControllerUi {
  /** Throws for an address that was asked for and cannot be bound; undefined when the optional default is taken. */
  start: StartUi;
  gwVersion: string;
}

export type RunningUi = { port: number; close(): Promise<void> } | undefined;

/** Starts the fleet UI when the CLI handed one. */
export async function startFleetUi(
  ui: ControllerUi | undefined,
  mode: FleetInfo['mode'],
  source: Pick<ControllerSource, 'built'>,
  proxies: () => ConnectedProxy[],
  log: Logger,
): Promise<RunningUi> {
  if (!ui) return undefined;
  const running = await ui.start(fleetApi(source, proxies, { mode, gwVersion: ui.gwVersion }));
  if (running) log.info({ port: running.port }, 'fleet UI serving');
  return running;
}
