// All open client sessions, independent of the config generation that created them, so a reload
// never cuts a session. Idle sessions (no request and no open GET stream) are closed, which reaps
// their stdio processes when a client goes away without DELETE. Admission is capped per proxy and
// per client, so one client cannot hold every session slot (docs/proxy.md "Limits").
import type { Logger } from 'pino';
import type { McpSession } from './session.js';
import { Primer } from './sse-stream.js';

/** A 2025-11-25 call unanswered this long gets its priming event (an SSE id, no data). */
export const primeAfterMs = 100;

export interface SessionLimits {
  maxSessions: number;
  maxSessionsPerClient: number;
  idleMs: number;
}

export interface SessionEvents {
  onCount(n: number): void;
  onExpired(): void;
  onRefused(reason: 'proxy_cap' | 'client_cap'): void;
}

/** A slot held while a session initializes; `commit` registers the session in it, `cancel` frees it. */
export interface Reservation {
  commit(session: McpSession): void;
  cancel(): void;
}

export type Admission =
  | { ok: true; reservation: Reservation }
  | { ok: false; code: 'overloaded' | 'too_many_sessions'; message: string; retryAfterSeconds: number };

export class SessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  /** Sessions and reservations per client key. */
  private readonly perClient = new Map<string, number>();
  private reserved = 0;
  private readonly sweeper: NodeJS.Timeout;
  /** One timer for every session's unanswered call streams. */
  readonly primer = new Primer(primeAfterMs);

  constructor(
    readonly log: Logger,
    private readonly limits: SessionLimits,
    private readonly events: SessionEvents,
  ) {
    this.sweeper = setInterval(() => void this.sweep(), Math.max(50, Math.min(limits.idleMs / 2, 60_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): McpSession | undefined {
    const s = this.sessions.get(id);
    return s && !s.closed ? s : undefined;
  }

  /** A slot for a new session of `client`, or why there is none (the caller answers with the code). */
  admit(client: string): Admission {
    const retryAfterSeconds = Math.ceil(Math.min(this.limits.idleMs, 60_000) / 1000);
    if (this.sessions.size + this.reserved >= this.limits.maxSessions) {
      this.events.onRefused('proxy_cap');
      return {
        ok: false,
        code: 'overloaded',
        retryAfterSeconds,
        message: `this proxy holds its maximum of ${this.limits.maxSessions} MCP sessions; end unused sessions or retry later`,
      };
    }
    if ((this.perClient.get(client) ?? 0) >= this.limits.maxSessionsPerClient) {
      this.events.onRefused('client_cap');
      return {
        ok: false,
        code: 'too_many_sessions',
        retryAfterSeconds,
        message: `this client holds its maximum of ${this.limits.maxSessionsPerClient} MCP sessions; end unused sessions (DELETE) or retry later`,
      };
    }
    this.reserved++;
    this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      this.reserved--;
      return true;
    };
    return {
      ok: true,
      reservation: {
        commit: (session) => {
          if (settle()) this.add(session, client);
        },
        cancel: () => {
          if (settle()) this.release(client);
        },
      },
    };
  }

  private add(session: McpSession, client: string): void {
    session.lastActive = Date.now();
    session.client = client;
    this.sessions.set(session.id, session);
    this.events.onCount(this.sessions.size);
    session.log.info('session started');
  }

  private release(client: string): void {
    const left = (this.perClient.get(client) ?? 1) - 1;
    if (left <= 0) this.perClient.delete(client);
    else this.perClient.set(client, left);
  }

  async end(id: string, reason = 'client ended the session'): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    this.release(s.client);
    this.events.onCount(this.sessions.size);
    await s.close();
    s.log.info({ reason }, 'session ended');
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    this.primer.stop();
    await Promise.all([...this.sessions.keys()].map((id) => this.end(id, 'proxy shutting down')));
  }

  private async sweep(): Promise<void> {
    const cutoff = Date.now() - this.limits.idleMs;
    for (const s of [...this.sessions.values()]) {
      if (s.lastActive < cutoff && !s.standalone?.open && !s.busy) {
        this.events.onExpired();
        await this.end(s.id, 'idle');
      }
    }
  }
}

/** The key sessions are counted under: the token's issuer and subject when the route authenticates, else the source address. */
export function clientKeyOf(claims: Record<string, unknown> | null, remoteAddress: string | undefined): string {
  const subject = subjectOf(claims);
  return subject ?? `addr ${remoteAddress ?? ''}`;
}

/** `iss` + `sub` of a validated token, the identity a session is bound to; undefined without one. */
export function subjectOf(claims: Record<string, unknown> | null): string | undefined {
  const sub = claims?.sub;
  if (typeof sub !== 'string' || sub === '') return undefined;
  const iss = typeof claims?.iss === 'string' ? claims.iss : '';
  return `sub ${iss} ${sub}`;
}
