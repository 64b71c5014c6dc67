// Writes an object's status through the status subresource when, and only when, it differs from what
// the informer cache holds. A JSON merge patch carrying metadata.resourceVersion makes the write
// conditional: if another writer got there first the API server answers 409 and the key is retried
// against the fresher cache, so route parents of other controllers are never overwritten blindly.
import type { Logger } from 'pino';
import type { Kind } from '../translate/objects/types.js';
import { splitObjectKey } from '../translate/objects/types.js';
import type { Informer } from './informer.js';
import { isStatus, type KubeClient } from './kube-client.js';
import { resourcePath } from './resources.js';
import { statusPatch } from './status-merge.js';
import type { Result } from './workers.js';

export interface StatusWriterOptions {
  client: KubeClient;
  controllerName: string;
  log: Logger;
  informers: ReadonlyMap<Kind, Informer>;
  /** The status this controller wants for an object key, undefined when it has nothing to say. */
  desired: (objectKey: string) => Record<string, unknown> | undefined;
  /** May the controller write to this namespace (`--gateway-namespaces`)? */
  writable: (namespace: string | undefined) => boolean;
}

/** Kinds whose status this controller writes. */
const STATUS_KINDS: ReadonlySet<Kind> = new Set<Kind>([
  'GatewayClass',
  'Gateway',
  'HTTPRoute',
  'GRPCRoute',
  'ListenerSet',
  'GwBackend',
  'GwPolicy',
  'GwParameters',
  'GwModel',
  'BackendTLSPolicy',
  'InferencePool',
]);

export class StatusWriter {
  /** Writes done, for tests and metrics. */
  writes = 0;

  constructor(private readonly o: StatusWriterOptions) {}

  async reconcile(objectKey: string): Promise<Result> {
    const k = splitObjectKey(objectKey);
    if (!k || !STATUS_KINDS.has(k.kind)) return {};
    const informer = this.o.informers.get(k.kind);
    const current = informer?.cache.get(k.key);
    if (!informer || !current) return {};
    const ns = current.metadata.namespace;
    if (!this.o.writable(ns)) return {};
    const patch = statusPatch(k.kind, current.status, this.o.desired(objectKey), this.o.controllerName);
    if (!patch) return {};
    const path = resourcePath(informer.resource, ns, current.metadata.name, 'status');
    try {
      await this.o.client.request('PATCH', path, {
        body: { metadata: { resourceVersion: current.metadata.resourceVersion }, status: patch },
        contentType: 'application/merge-patch+json',
      });
    } catch (err) {
      // Deleted meanwhile: nothing to report on. Anything else (409 included) is retried with backoff.
      if (isStatus(err, 404)) return {};
      throw err;
    }
    this.writes++;
    this.o.log.debug({ object: objectKey }, 'status written');
    return {};
  }
}
