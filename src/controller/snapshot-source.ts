// The controller's SnapshotSource for the xDS server: each translated BuiltSnapshot becomes named
// resources (`bind/…`, `listener/…`, `route/…`, `backend/…`, `model/…`), each body the protobuf
// `gw.ir.v1.Resource` holding it. Bodies of unchanged resources are reused so versions stay memoized.
import { IR_RESOURCE_TYPE, encodeResource as encodeIr } from '../ir/load.js';
import type { ResourceInput } from '../ir/types.js';
import type { BuiltResource, BuiltSnapshot } from '../translate/built-ir.js';
import { createMemorySource } from '../xds/memory-source.js';
import type { SnapshotSource, XdsResource } from '../xds/server.js';

export const RESOURCE_TYPE = IR_RESOURCE_TYPE;

// The translator's IR is the proto3 JSON form of proto/gw/ir/v1, so it serializes as is.
function encodeResource(r: BuiltResource): XdsResource {
  return { type: RESOURCE_TYPE, body: encodeIr(wireForm(r)) };
}

/**
 * What proxies get of a resource: all of it but the merged JSON fields with their provenance that
 * `gw explain` reads from its own translation (Listener.frontend, Route.effective, BackendRef.policy and
 * target_policies). No proxy reads them (test/proxy/ir-json-reads.test.ts), and they were half of
 * every route's bytes on the wire and in the bodies held here.
 */
export function wireForm(r: BuiltResource): ResourceInput {
  if (r.kind === 'route') {
    const { effective: _explained, backends, ...route } = r.route;
    const edges = backends?.map(({ policy: _policy, targetPolicies: _targets, ...edge }) => edge);
    return { ...r, route: edges ? { ...route, backends: edges } : route };
  }
  if (r.kind === 'listener' && r.listener.frontend) {
    const { frontend: _explained, ...listener } = r.listener;
    return { ...r, listener };
  }
  return r as unknown as ResourceInput;
}

export function resourceName(r: BuiltResource): string {
  const value = (r as unknown as Record<string, { name: string }>)[r.kind]!;
  return `${r.kind}/${value.name}`;
}

export interface ControllerSource extends SnapshotSource {
  /** Replaces a gateway's snapshot (undefined: the gateway is gone or no longer ours). */
  publish(gateway: string, snapshot: BuiltSnapshot | undefined): void;
  setReady(ready: boolean): void;
  /** Per gateway, the translated resources of its current snapshot by name (the fleet view reads refusals). */
  built(): ReadonlyMap<string, ReadonlyMap<string, BuiltResource>>;
}

export function createControllerSource(): ControllerSource {
  // Holding, readiness and change notification are the xDS memory source's; this adds encoding and
  // reuse of unchanged bodies (versions are memoized per body object).
  const held = createMemorySource({ ready: false });
  // Per gateway and name: the IR object the body was encoded from. The translator hands back the same
  // object for what it did not re-translate, so most of a change's resources are reused without encoding.
  const sources = new Map<string, Map<string, BuiltResource>>();
  return {
    ready: held.ready,
    get: held.get,
    subscribe: held.subscribe,
    setReady: held.setReady,
    built: () => sources,
    publish(gateway, snapshot) {
      if (!snapshot) {
        if (held.get(gateway)) held.delete(gateway);
        sources.delete(gateway);
        return;
      }
      const prev = held.get(gateway);
      const prevSources = sources.get(gateway);
      const next = new Map<string, XdsResource>();
      const nextSources = new Map<string, BuiltResource>();
      let changed = !prev || prev.size !== snapshot.resources.length;
      for (const r of snapshot.resources) {
        const name = resourceName(r);
        const old = prev?.get(name);
        const body = bodyOf(old, prevSources?.get(name), r);
        next.set(name, body);
        changed ||= body !== old;
        nextSources.set(name, r);
      }
      sources.set(gateway, nextSources);
      if (changed) held.set(gateway, next);
    },
  };
}

/** The held body when `r` is what it was made from or encodes to the same bytes; else the new encoding. */
function bodyOf(old: XdsResource | undefined, oldSource: BuiltResource | undefined, r: BuiltResource): XdsResource {
  if (old && oldSource === r) return old;
  const fresh = encodeResource(r);
  return old && Buffer.compare(fresh.body, old.body) === 0 ? old : fresh;
}
