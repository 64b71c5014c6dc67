// A Gateway's or ListenerSet's listeners as the translator reads them, narrowed once per object (the
// Gateway API owns their schema, and local files are not checked against it): a field of another type
// reads as unset, never as a crash, and the code past this file reads typed fields.
import { list, memoized, number, object, optional, record, string, type Narrow } from '../objects/narrow.js';
import type { StoredObject } from '../objects/types.js';

export interface CertificateRef {
  group?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

export interface ListenerSpec {
  name?: string;
  protocol?: string;
  port?: number;
  hostname?: string;
  /** Set (even empty) when the listener has a `tls` object: an HTTP listener must not. */
  tls?: { mode?: string; certificateRefs?: CertificateRef[]; options?: Record<string, unknown> };
  /** Kept as written: route attachment reads its namespaces and selector (listeners.ts). */
  allowedRoutes?: Record<string, unknown>;
}

/** The owner's `spec`: its listeners and, on a Gateway, which namespaces' ListenerSets may add more. */
export interface ListenerOwnerSpec {
  listeners?: ListenerSpec[];
  allowedListeners?: { namespaces?: { from?: string; selector?: Record<string, unknown> } };
}

const certificateRef = object<CertificateRef>({ group: string, kind: string, namespace: string, name: string });

export const listenerSpec = object<ListenerSpec>({
  name: string,
  protocol: string,
  port: number,
  hostname: string,
  tls: optional({ mode: string, certificateRefs: list(certificateRef), options: record }),
  allowedRoutes: record,
});

const ownerSpec: Narrow<ListenerOwnerSpec> = memoized(
  object<ListenerOwnerSpec>({
    listeners: list(listenerSpec),
    allowedListeners: optional({ namespaces: optional({ from: string, selector: record }) }),
  }),
);

export const listenerOwnerSpec = (e: StoredObject): ListenerOwnerSpec => ownerSpec(e.obj.spec);

/** `allowedRoutes.kinds[].kind` as written (an entry without a kind counts as the empty kind). */
export const allowedKinds: Narrow<string[]> = (v) =>
  (list(object<{ kind?: string }>({ kind: string }))(record(v)?.kinds) ?? []).map((k) => k.kind ?? '');
