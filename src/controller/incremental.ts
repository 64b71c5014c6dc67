// Incremental translation, shared by cluster and local mode: object changes since the last pass are
// translated for the gateways they affect, or, when there is no state yet or too many changes, all
// gateways at once. A failed pass drops the state so the next one starts afresh.
import type { TranslateOptions } from '../translate/objects/context.js';
import { applyChange, translateAll, type TranslationState } from '../translate/state.js';
import type { Store } from '../translate/objects/store.js';
import type { StoredObject } from '../translate/objects/types.js';

/** Above this many changes in one pass, one full translation is cheaper than one per change. */
export const FULL_TRANSLATE_THRESHOLD = 50;

/** An object key (`Kind/ns/name`) and the store entry it replaced or deleted (undefined: it is new). */
export interface Change {
  key: string;
  previous: StoredObject | undefined;
}

export interface TranslationPass {
  /** Gateways translated again (every gateway on a full pass). */
  gateways: string[];
  /** Object keys whose status was reassembled (every one on a full pass). */
  statuses: string[];
  /** A full pass: callers add what they published or wrote before, which may now be gone. */
  full: boolean;
}

export class IncrementalTranslation {
  private current: TranslationState | undefined;

  constructor(private readonly store: Store) {}

  get state(): TranslationState | undefined {
    return this.current;
  }

  run(options: TranslateOptions, changes: readonly Change[]): TranslationPass {
    try {
      if (!this.current || changes.length > FULL_TRANSLATE_THRESHOLD) {
        this.current = translateAll(this.store, options);
        return { gateways: [...this.current.gateways.keys()], statuses: [...this.current.statuses.keys()], full: true };
      }
      const state = this.current;
      state.options = options;
      const gateways = new Set<string>();
      const statuses = new Set<string>();
      for (const c of changes) {
        const r = applyChange(state, this.store, c.key, c.previous);
        r.gateways.forEach((g) => gateways.add(g));
        r.statuses.forEach((s) => statuses.add(s));
      }
      return { gateways: [...gateways], statuses: [...statuses], full: false };
    } catch (err) {
      this.current = undefined;
      throw err;
    }
  }
}

/** Changes waiting for the next pass; an object changed twice keeps the entry it had before the first change. */
export class PendingChanges {
  private readonly changes = new Map<string, StoredObject | undefined>();

  record(key: string, previous: StoredObject | undefined): void {
    if (!this.changes.has(key)) this.changes.set(key, previous);
  }

  take(): Change[] {
    const out = [...this.changes].map(([key, previous]) => ({ key, previous }));
    this.changes.clear();
    return out;
  }

  /** Puts back what a failed pass took, behind anything recorded since. */
  restore(changes: readonly Change[]): void {
    for (const c of changes) this.record(c.key, c.previous);
  }
}
