// The controller's SnapshotSource for the xDS server: each translated BuiltSnapshot becomes named
// resources (`bind/…`, `listener/…`, `route/…`, `backend/…`, `model/…`), each body the protobuf
// `gw.ir.v1.Resource` holding it. Bodies of unchanged resources are reused so versions stay memoized.
import { IR_RESOURCE_TYPE, encodeResource as encodeIr } from '../ir/load.js';
import type { ResourceInput } from '../ir/types.js';
import type { BuiltResource, BuiltSnapshot } from '../translate/built-ir.js';
import { stableStringify } from '../translate/objects/read.js';
import { createMemorySource } from '../xds/memory-source.js';
import type { SnapshotSource, XdsResource } from '../xds/server.js';

export const RESOURCE_TYPE = IR_RESOURCE_TYPE;

// The translator's IR is the proto3 JSON form of proto/gw/ir/v1, so it serializes as is.
function encodeResource(r: BuiltResource): XdsResource {
  return { type: RESOURCE_TYPE, body: encodeIr(r as unknown as ResourceInput) };
}

export function resourceName(r: BuiltResource): string {
  const value = (r as unknown as Record<string, { name: string }>)[r.kind]!;
  return `${r.kind}/${value.name}`;
}

export interface ControllerSource extends SnapshotSource {
  /** Replaces a gateway's snapshot (undefined: the gateway is gone or no longer ours). */
  publish(gateway: string, snapshot: BuiltSnapshot | undefined): void;
  setReady(ready: boolean): void;
}

export function createControllerSource(): ControllerSource {
  // Holding, readiness and change notification are the xDS memory source's; this adds encoding and
  // reuse of unchanged bodies (versions are memoized per body object).
  const held = createMemorySource({ ready: false });
  // Per gateway and name: the canonical text the body was made from.
  const texts = new Map<string, Map<string, string>>();
  return {
    ready: held.ready,
    get: held.get,
    subscribe: held.subscribe,
    setReady: held.setReady,
    publish(gateway, snapshot) {
      if (!snapshot) {
        if (held.get(gateway)) held.delete(gateway);
        texts.delete(gateway);
        return;
      }
      const prev = held.get(gateway);
      const prevTexts = texts.get(gateway) ?? new Map<string, string>();
      const next = new Map<string, XdsResource>();
      const nextTexts = new Map<string, string>();
      let changed = !prev || prev.size !== snapshot.resources.length;
      for (const r of snapshot.resources) {
        const name = resourceName(r);
        const text = stableStringify(r);
        const old = prev?.get(name);
        if (old && prevTexts.get(name) === text) next.set(name, old);
        else {
          next.set(name, encodeResource(r));
          changed = true;
        }
        nextTexts.set(name, text);
      }
      texts.set(gateway, nextTexts);
      if (changed) held.set(gateway, next);
    },
  };
}
