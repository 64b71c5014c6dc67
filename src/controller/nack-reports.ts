// What proxies said when they rejected resources, kept per object the resource came from, so the
// status reconciler can put `Programmed=False RejectedByProxy` on that object alone and clear it when
// the proxy applies or drops the resource (or goes away).
import type { Rejection } from './status-merge.js';
import { objectOfResource } from './xds-glue.js';

export class NackReports {
  /** Object key → `gateway|pod|resource` → the rejection. */
  private readonly byObject = new Map<string, Map<string, Rejection>>();

  /** Records rejections; returns the object keys whose status changes. */
  report(gateway: string, pod: string, errors: readonly { name: string; message: string }[]): string[] {
    const touched = new Set<string>();
    for (const e of errors) {
      const key = objectOfResource(e.name, gateway);
      let m = this.byObject.get(key);
      if (!m) this.byObject.set(key, (m = new Map()));
      m.set(`${gateway}|${pod}|${e.name}`, { gateway, message: `proxy ${pod} rejected ${e.name}: ${e.message}` });
      touched.add(key);
    }
    return [...touched];
  }

  /** Drops rejections the proxy no longer holds; returns the object keys whose status changes. */
  resolve(gateway: string, pod: string, names: readonly string[]): string[] {
    const touched = new Set<string>();
    for (const name of names) {
      const key = objectOfResource(name, gateway);
      const m = this.byObject.get(key);
      if (!m?.delete(`${gateway}|${pod}|${name}`)) continue;
      if (m.size === 0) this.byObject.delete(key);
      touched.add(key);
    }
    return [...touched];
  }

  /** Object keys with a standing rejection. */
  objects(): string[] {
    return [...this.byObject.keys()];
  }

  of(objectKey: string): Rejection[] {
    return [...(this.byObject.get(objectKey)?.values() ?? [])];
  }
}
