// Incremental translation, shared by cluster and local mode: object changes since the last pass are
// translated for the gateways they affect (each gateway once per pass, however many changes it reads),
// or, when there is no state yet or too many changes, all gateways at once. Cluster mode runs the pass
// in slices that yield to the event loop. A failed pass drops the state so the next one starts afresh.
import type { TranslateOptions } from '../translate/objects/context.js';
import {
  allObjectKeys,
  applyChanges,
  emptyState,
  planChanges,
  refreshStatus,
  translateAll,
  translateInto,
  type ObjectChange,
  type TranslationState,
} from '../translate/state.js';
import type { Store } from '../translate/objects/store.js';
import { listObjects } from '../translate/objects/store.js';
import type { StoredObject } from '../translate/objects/types.js';
import type { Slicer } from './slices.js';

/** Above this many changes in one pass, one full translation is cheaper than one per change. */
export const FULL_TRANSLATE_THRESHOLD = 50;

/** An object key (`Kind/ns/name`) and the store entry it replaced or deleted (undefined: it is new). */
export type Change = ObjectChange;

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
        return this.fullPass(this.current);
      }
      this.current.options = options;
      return { ...applyChanges(this.current, this.store, changes), full: false };
    } catch (err) {
      this.current = undefined;
      throw err;
    }
  }

  /**
   * The same pass as `run`, gateway by gateway and status by status, yielding whenever `slicer` says so.
   * Objects that change meanwhile are the next pass's changes: every gateway reading them is registered
   * as their reader by then, so nothing is missed.
   */
  async runSliced(options: TranslateOptions, changes: readonly Change[], slicer: Slicer): Promise<TranslationPass> {
    try {
      if (!this.current || changes.length > FULL_TRANSLATE_THRESHOLD) {
        // Built aside: readers of `state` keep the previous translation until this one is complete.
        const next = emptyState(options);
        const dirty = new Set<string>();
        for (const gw of listObjects(this.store, 'Gateway')) {
          translateInto(next, this.store, gw.key, dirty);
          await slicer.maybeYield();
        }
        await refreshSliced(next, this.store, allObjectKeys(this.store), slicer);
        this.current = next;
        return this.fullPass(next);
      }
      const state = this.current;
      state.options = options;
      const plan = planChanges(state, this.store, changes);
      for (const g of plan.gateways) {
        translateInto(state, this.store, g, plan.dirty);
        await slicer.maybeYield();
      }
      await refreshSliced(state, this.store, [...plan.dirty], slicer);
      return { gateways: plan.gateways, statuses: [...plan.dirty].sort(), full: false };
    } catch (err) {
      this.current = undefined;
      throw err;
    }
  }

  private fullPass(state: TranslationState): TranslationPass {
    return { gateways: [...state.gateways.keys()], statuses: [...state.statuses.keys()], full: true };
  }
}

async function refreshSliced(state: TranslationState, store: Store, keys: string[], slicer: Slicer): Promise<void> {
  for (const k of keys) {
    refreshStatus(state, store, k);
    await slicer.maybeYield();
  }
}

/** Changes waiting for the next pass; an object changed twice keeps the entry it had before the first change. */
export class PendingChanges {
  private readonly changes = new Map<string, StoredObject | undefined>();

  record(key: string, previous: StoredObject | undefined): void {
    if (!this.changes.has(key)) this.changes.set(key, previous);
  }

  get size(): number {
    return this.changes.size;
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
