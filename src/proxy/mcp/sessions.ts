// All open client sessions, independent of the config generation that created them, so a reload
// never cuts a session. Idle sessions (no request and no open GET stream) are closed, which reaps
// their stdio processes when a client goes away without DELETE.
import type { Logger } from 'pino';
import type { McpSession } from './session.js';
import { Primer } from './sse-stream.js';

/** A 2025-11-25 call unanswered this long gets its priming event (an SSE id, no data). */
export const primeAfterMs = 100;

export class SessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;
  /** One timer for every session's unanswered call streams. */
  readonly primer = new Primer(primeAfterMs);

  constructor(readonly log: Logger, private readonly idleMs: number, private readonly onCount: (n: number) => void) {
    this.sweeper = setInterval(() => void this.sweep(), Math.max(50, Math.min(idleMs / 2, 60_000)));
    this.sweeper.unref();
  }

  get size(): number { return this.sessions.size; }

  get(id: string): McpSession | undefined {
    const s = this.sessions.get(id);
    return s && !s.closed ? s : undefined;
  }

  add(session: McpSession): void {
    session.lastActive = Date.now();
    this.sessions.set(session.id, session);
    this.onCount(this.sessions.size);
    session.log.info('session started');
  }

  async end(id: string, reason = 'client ended the session'): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    this.onCount(this.sessions.size);
    await s.close();
    s.log.info({ reason }, 'session ended');
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    this.primer.stop();
    await Promise.all([...this.sessions.keys()].map((id) => this.end(id, 'proxy shutting down')));
  }

  private async sweep(): Promise<void> {
    const cutoff = Date.now() - this.idleMs;
    for (const s of [...this.sessions.values()]) {
      if (s.lastActive < cutoff && !s.standalone?.open && !s.busy) await this.end(s.id, 'idle');
    }
  }
}
