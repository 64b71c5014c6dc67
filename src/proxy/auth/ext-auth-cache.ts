// Decisions of an external authorization service kept per key (GwPolicy `traffic.extAuth.cache`), so
// repeated requests of one caller skip the call. Lives in the compiled route plan: a new snapshot starts empty.
import type { CelBindings, CompiledCel } from '../policy/cel/env.js';

/** A header change an allowing gRPC service asks for (Envoy's HeaderValueOption append actions). */
export interface HeaderMutation {
  name: string;
  value: string;
  action: 'append' | 'addIfAbsent' | 'set' | 'setIfPresent';
}

export type Decision =
  | {
      kind: 'allow';
      /** Set on the upstream request, replacing the client's value. */
      headers: Record<string, string | string[]>;
      /** gRPC: the OkHttpResponse's header changes, removals and response headers, in order. */
      mutations?: HeaderMutation[];
      remove?: string[];
      responseHeaders?: HeaderMutation[];
      /** gRPC dynamic_metadata or HTTP responseMetadata: CEL `extauthz` for later rules and the access log. */
      metadata?: Record<string, unknown>;
    }
  | { kind: 'deny'; status: number; headers: Record<string, string | string[]>; body: Buffer };

export class DecisionCache {
  private readonly entries = new Map<string, { expires: number; decision: Decision }>();

  constructor(
    private readonly keys: readonly CompiledCel[],
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The key of a request, or undefined when an expression fails or yields no scalar: that request is not cached. */
  keyOf(bindings: CelBindings): string | undefined {
    const parts: string[] = [];
    for (const k of this.keys) {
      const v = k.evaluate(bindings);
      if (typeof v === 'string') parts.push(`s${v}`);
      else if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean')
        parts.push(`${typeof v}${String(v)}`);
      else return undefined;
    }
    return JSON.stringify(parts);
  }

  get(key: string, now: number): Decision | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires > now) return e.decision;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, decision: Decision, now: number): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    // Map order is insertion order: the first key is the one stored longest ago.
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { expires: now + this.ttlMs, decision });
  }
}
