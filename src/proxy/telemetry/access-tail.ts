// The web UI's live access-log tail (docs/ui.md): the lines listeners' access logs write (after their CEL
// filter, with their attributes added and removed), kept in a bounded ring while someone reads it. Nobody
// reading for a while: lines are not copied and the ring is emptied, so an unwatched tail costs one check.
import type { AccessEntry } from '../../ui-api/types.js';

/** Fields that name an MCP session (a digest of its id, but still a handle on it): never tailed. */
const SESSION_FIELDS = new Set(['mcp_session', 'mcp.session.id']);

export interface TailRead {
  entries: AccessEntry[];
  last: number;
  dropped: number;
}

export class AccessTail {
  private readonly ring: AccessEntry[] = [];
  private seq = 0;
  private watchedUntil = 0;
  private readonly waiters = new Set<() => void>();

  /** `size` lines at most; the tail stays on `idleMs` after the last read. */
  constructor(
    private readonly size = 200,
    private readonly idleMs = 30_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /** True while the UI reads the tail: the access log hands its lines over only then. */
  get watched(): boolean {
    return this.clock() < this.watchedUntil;
  }

  push(listener: string, fields: Readonly<Record<string, string | number | boolean>>): void {
    if (!this.watched) {
      this.ring.length = 0;
      return;
    }
    const kept = Object.fromEntries(Object.entries(fields).filter(([k]) => !SESSION_FIELDS.has(k)));
    this.ring.push({ seq: ++this.seq, listener, fields: kept });
    if (this.ring.length > this.size) this.ring.shift();
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** The lines after `after`; when there is none yet, waits up to `waitMs` for one (a long poll). */
  async read(after: number, waitMs: number, signal?: AbortSignal): Promise<TailRead> {
    this.watchedUntil = this.clock() + this.idleMs;
    // A cursor from before a restart (or another worker) starts over.
    const from = after > this.seq ? 0 : after;
    if (!this.ring.some((e) => e.seq > from) && waitMs > 0 && !signal?.aborted) await this.next(waitMs, signal);
    const entries = this.ring.filter((e) => e.seq > from);
    const first = entries[0]?.seq ?? this.seq + 1;
    return { entries, last: this.seq, dropped: Math.max(0, first - from - 1) };
  }

  private next(waitMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }
}
