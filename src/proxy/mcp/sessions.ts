// All open client sessions, independent of the config generation that created them, so a reload
// never cuts a session. Idle sessions (no request and no open GET stream) are let go, which reaps
// their stdio processes when a client goes away without DELETE; their sealed id still opens here or
// on any replica until it expires. Admission is capped per proxy and per client, so one client cannot
// hold every session slot (docs/proxy.md "Limits", "Sessions across replicas and workers").
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { McpSession } from './session.js';
import { randomSessionKeys, type SessionKeys } from './session-keys.js';
import { SessionSealer, subjectOf } from './session-seal.js';
import type { HeldCalls } from './input-bridge.js';
import { Primer } from './sse-stream.js';

/** A 2025-11-25 call unanswered this long gets its priming event (an SSE id, no data). */
export const primeAfterMs = 100;

export interface SessionLimits {
  maxSessions: number;
  maxSessionsPerClient: number;
  idleMs: number;
  /** How long a sealed id opens after initialize. */
  maxAgeMs: number;
  /** How long a 2026 client has to answer a 2025 target's requests for input (input-bridge.ts). */
  inputTimeoutMs: number;
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

/** Why a session could not be admitted. */
export type Refused = Extract<Admission, { ok: false }>;

/** Ended-session digests kept (12 hex characters each): the oldest go first beyond this. */
const maxEnded = 100_000;

export class SessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  /** Sessions and reservations per client key. */
  private readonly perClient = new Map<string, number>();
  private reserved = 0;
  private readonly sweeper: NodeJS.Timeout;
  /**
   * Sessions ended here (DELETE, lost at their targets) or on a sibling worker, by id digest, until their
   * id expires: a session whose targets are all process-local has no target to tell other holders.
   */
  private readonly ended = new Map<string, number>();
  /** Called when a session ends everywhere, so the workers' primary can tell the other workers. */
  onEndedEverywhere: ((digest: string, expiresAt: number) => Promise<void>) | undefined;
  /** Resumes under way, so concurrent first requests with one sealed id build one session. */
  private readonly resuming = new Map<string, Promise<McpSession | Refused | undefined>>();
  /** One timer for every session's unanswered call streams. */
  readonly primer = new Primer(primeAfterMs);
  readonly sealer: SessionSealer;
  /** Calls of 2025 targets waiting for a 2026 client's input that only this process can finish (input-bridge.ts). */
  readonly held: HeldCalls = new Map();

  /** How long a 2026 client has to answer a 2025 target's requests for input. */
  get inputTimeoutMs(): number {
    return this.limits.inputTimeoutMs;
  }

  constructor(
    readonly log: Logger,
    private readonly limits: SessionLimits,
    private readonly events: SessionEvents,
    keys: SessionKeys = randomSessionKeys(),
    /** Milliseconds now, for the sealed ids' max age (tests move it instead of waiting). */
    readonly now: () => number = Date.now,
  ) {
    this.sealer = new SessionSealer(keys);
    this.sweeper = setInterval(() => void this.sweep(), Math.max(50, Math.min(limits.idleMs / 2, 60_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): McpSession | undefined {
    const s = this.sessions.get(id);
    if (s && s.expiresAt <= this.now()) {
      // Past the sealed expiry no replica opens the id; this one lets go of its copy too.
      void this.end(id, 'session max age reached', false);
      return undefined;
    }
    return s && !s.closed ? s : undefined;
  }

  /** Seals the initialized session's state into its id (the route names which endpoint may resume it). */
  seal(session: McpSession, route: string): string {
    session.expiresAt = this.now() + this.limits.maxAgeMs;
    const state = session.state(route, session.expiresAt);
    session.sealed = state.targets;
    const id = this.sealer.seal(state);
    session.id = id;
    session.log = session.log.child({ session: shortId(id) });
    return id;
  }

  /** A session this process does not hold, resumed once however many requests name it at the same time. */
  resumeOnce(
    id: string,
    resume: () => Promise<McpSession | Refused | undefined>,
  ): Promise<McpSession | Refused | undefined> {
    if (this.ended.has(shortId(id))) return Promise.resolve(undefined);
    let p = this.resuming.get(id);
    if (!p) {
      p = resume().finally(() => this.resuming.delete(id));
      this.resuming.set(id, p);
    }
    return p;
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
  }

  private release(client: string): void {
    const left = (this.perClient.get(client) ?? 1) - 1;
    if (left <= 0) this.perClient.delete(client);
    else this.perClient.set(client, left);
  }

  /** `everywhere` ends the target sessions too (DELETE, a lost target); otherwise only this process lets go. */
  /** Remembers that a session ended (on this or a sibling process), so its id no longer resumes here. */
  markEnded(digest: string, expiresAt: number): void {
    const now = this.now();
    if (this.ended.size >= maxEnded)
      for (const [d, exp] of this.ended) if (exp <= now || this.ended.size >= maxEnded) this.ended.delete(d);
    this.ended.set(digest, expiresAt);
  }

  /** A sibling worker ended a session: never resume it here, and let go of a copy held here. */
  async endedElsewhere(digest: string, expiresAt: number): Promise<void> {
    this.markEnded(digest, expiresAt);
    for (const id of [...this.sessions.keys()])
      if (shortId(id) === digest) await this.end(id, 'ended on another worker', false);
  }

  async end(id: string, reason = 'client ended the session', everywhere = true): Promise<void> {
    const s = this.sessions.get(id);
    if (everywhere) {
      const expiresAt =
        s?.expiresAt ?? this.sealer.open(id, this.now())?.expiresAt ?? this.now() + this.limits.maxAgeMs;
      this.markEnded(shortId(id), expiresAt);
      await this.onEndedEverywhere?.(shortId(id), expiresAt);
    }
    if (!s) return;
    this.sessions.delete(id);
    this.release(s.client);
    this.events.onCount(this.sessions.size);
    await s.close(everywhere);
    s.log.info({ reason }, 'session ended');
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    this.primer.stop();
    await Promise.all([...this.sessions.keys()].map((id) => this.end(id, 'proxy shutting down', false)));
  }

  private async sweep(): Promise<void> {
    const cutoff = Date.now() - this.limits.idleMs;
    for (const s of [...this.sessions.values()]) {
      if (s.lastActive < cutoff && !s.standalone?.open && !s.busy) {
        this.events.onExpired();
        await this.end(s.id, 'idle', false);
      }
    }
  }
}

/** The key sessions are counted under: the token's issuer and subject when the route authenticates, else the source address. */
export function clientKeyOf(claims: Record<string, unknown> | null, remoteAddress: string | undefined): string {
  const subject = subjectOf(claims);
  return subject ?? `addr ${remoteAddress ?? ''}`;
}

export { subjectOf };

/** A short digest of a sealed id for logs: the id itself opens the session, so it is never logged. */
export function shortId(id: string): string {
  return createHash('sha256').update(id).digest('hex').slice(0, 12);
}
