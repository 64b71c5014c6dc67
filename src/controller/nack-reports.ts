// What proxies said about the resources they do not serve (refused in a response, or dropped because
// a response left them dangling), kept per object the resource came from, so the status reconciler can
// put `Programmed=False RejectedByProxy` on that object alone and clear it when the proxy applies the
// resource, is told to remove it, or goes away. A Gateway also learns which other objects its proxies
// do not serve, so its own status never claims more than they do.
import type { Rejection } from './status-merge.js';
import { objectOfResource } from './xds-glue.js';

export class NackReports {
  /** Object key → `gateway|pod|resource` → the rejection. */
  private readonly byObject = new Map<string, Map<string, Rejection>>();

  /** Records refusals; returns the object keys whose status changes. */
  report(gateway: string, pod: string, errors: readonly { name: string; message: string }[]): string[] {
    const touched = new Set<string>();
    for (const e of errors) {
      const key = objectOfResource(e.name, gateway);
      let m = this.byObject.get(key);
      if (!m) this.byObject.set(key, (m = new Map()));
      m.set(`${gateway}|${pod}|${e.name}`, {
        gateway,
        resource: e.name,
        message: `proxy ${pod} rejected ${e.name}: ${e.message}`,
      });
      touched.add(key);
    }
    return withGateway(touched, gateway);
  }

  /** Drops refusals the proxy no longer stands by; returns the object keys whose status changes. */
  resolve(gateway: string, pod: string, names: readonly string[]): string[] {
    const touched = new Set<string>();
    for (const name of names) {
      const key = objectOfResource(name, gateway);
      const m = this.byObject.get(key);
      if (!m?.delete(`${gateway}|${pod}|${name}`)) continue;
      if (m.size === 0) this.byObject.delete(key);
      touched.add(key);
    }
    return withGateway(touched, gateway);
  }

  /** Object keys with a standing refusal, and the Gateways whose proxies refuse another object's resource. */
  objects(): string[] {
    const keys = new Set(this.byObject.keys());
    for (const m of this.byObject.values()) for (const r of m.values()) keys.add(`Gateway/${r.gateway}`);
    return [...keys];
  }

  of(objectKey: string): Rejection[] {
    return [...(this.byObject.get(objectKey)?.values() ?? [])];
  }

  /** For a Gateway's key: the other objects its proxies do not serve (all of or in part), sorted. */
  elsewhere(objectKey: string): string[] {
    if (!objectKey.startsWith('Gateway/')) return [];
    const gateway = objectKey.slice('Gateway/'.length);
    const keys: string[] = [];
    for (const [key, m] of this.byObject)
      if (key !== objectKey && [...m.values()].some((r) => r.gateway === gateway)) keys.push(key);
    return keys.sort();
  }
}

/** A change on another object changes what the Gateway's status says about its proxies too. */
function withGateway(touched: Set<string>, gateway: string): string[] {
  if (touched.size > 0) touched.add(`Gateway/${gateway}`);
  return [...touched];
}
