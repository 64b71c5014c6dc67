// Watches what the deployer applied (its managed-by label, in the namespaces it may write) so that a
// proxy Deployment, Service or any other owned object deleted by hand is applied again at once,
// instead of at the next Gateway change, resync or controller restart.
import type { Logger } from 'pino';
import { MANAGED_BY } from '../deployer/naming.js';
import type { Clock } from './clock.js';
import { Informer, type InformerEvent } from './informer.js';
import type { KubeClient } from './kube-client.js';
import { DEPLOYED } from './resources.js';

export const OWNED_SELECTOR = `app.kubernetes.io/managed-by=${MANAGED_BY}`;

export interface OwnedWatchOptions {
  client: KubeClient;
  log: Logger;
  clock: Clock;
  /** Namespaces the deployer writes to; empty: all (one cluster-wide watch per kind). */
  namespaces: readonly string[];
  /** A Gateway (`ns/name`) lost an object it owns. */
  onDeleted: (gateway: string) => void;
}

/** The Gateway an owned object belongs to, by its controller owner reference. */
export function owningGateway(e: InformerEvent): string | undefined {
  const refs = (e.obj.metadata.ownerReferences ?? []) as { kind?: string; name?: string }[];
  const ref = refs.find((r) => r.kind === 'Gateway' && r.name);
  return ref && e.obj.metadata.namespace ? `${e.obj.metadata.namespace}/${ref.name}` : undefined;
}

export function startOwnedWatch(o: OwnedWatchOptions): Informer[] {
  const namespaces = o.namespaces.length ? o.namespaces : [undefined];
  const informers: Informer[] = [];
  for (const res of DEPLOYED) {
    for (const namespace of namespaces) {
      const inf = new Informer(o.client, [res], {
        log: o.log,
        clock: o.clock,
        resyncMs: 0,
        labelSelector: OWNED_SELECTOR,
        ...(namespace ? { namespace } : {}),
        onEvent: (e) => {
          if (e.type !== 'delete') return;
          const gateway = owningGateway(e);
          if (!gateway) return;
          o.log.info({ gateway, kind: res.kind, name: e.obj.metadata.name }, 'owned object deleted; applying again');
          o.onDeleted(gateway);
        },
      });
      inf.start();
      informers.push(inf);
    }
  }
  return informers;
}
