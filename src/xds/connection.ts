// One proxy's xDS stream as the server sees it once subscribed: what the proxy holds (what it was sent,
// less what its NACKs say it refused or dropped), which responses await an answer, and what it does
// not serve. Whatever it lacks is sent again on the gateway's next change, at once when the NACK
// answered an older snapshot than the current one, and else on a backoff timer, so a refusal (the
// resource's own fault, a missing dependency, or a proxy that refused a whole response) never keeps a
// later change, or the return of a dependency, from reaching the proxy (docs/xds.md, "What a proxy holds").
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import type { XdsMetrics } from './metrics.js';
import type { DeltaRequest, DeltaResponse, ResourceError, ResourceRefusal } from './protocol.js';
import { diffSnapshot, type VersionedSnapshot } from './snapshot.js';
import { EncodedResponse, encodeShared } from './wire.js';

const MAX_INFLIGHT = 64;
const MAX_NACK_ERRORS = 100;
const MAX_TEXT = 1024;
/** Stands in `sent` for a resource the proxy refused or dropped: the next push upserts or removes it. */
const UNKNOWN_VERSION = '';
/** Re-sending rejected resources when nothing changed: from 1 s, doubling, capped at 1 min. */
export const RESEND_BACKOFF: BackoffOptions = { initialMs: 1_000, maxMs: 60_000 };

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

/** What one ACK or NACK told the server, for the server's callbacks. */
export interface ReplyOutcome {
  /** The whole response was applied: the snapshot the proxy now holds, else undefined. */
  ackedVersion?: string;
  /** Resources the proxy refused or dropped (bounded in count and length: they end up in logs and status). */
  errors: ResourceRefusal[];
  /** Resources refused before that the proxy has now applied, or that it was told to remove. */
  resolved: string[];
}

export interface ConnectionDeps {
  metrics: XdsMetrics;
  log: Logger;
  /** The gateway's current snapshot, or null while it has none. */
  snapshot: () => VersionedSnapshot | null;
  random?: () => number;
  resendBackoff?: BackoffOptions;
  /** Wall clock for what the fleet view shows (connected since, last reply). */
  now?: () => number;
}

/** The proxy's last answer, as the controller's fleet view shows it (docs/ui.md "Fleet view"). */
export interface LastReply {
  ack: 'ACK' | 'NACK';
  at: number;
  /** The snapshot version of the response answered ('' when the nonce was forgotten). */
  version: string;
  errors: ResourceRefusal[];
}

export class ProxyConnection {
  /**
   * What the proxy holds or has been sent: after every push exactly the snapshot pushed (`base`, shared
   * with every proxy of the gateway), else a map of its own ({name → version}, UNKNOWN_VERSION for a
   * rejected one) until the next push: the versions announced on subscribe, or after a NACK.
   */
  private base: VersionedSnapshot | null = null;
  private own: Map<string, string> | null;
  private readonly inflight = new Map<string, { at: number; names: string[]; systemVersion: string }>();
  /** Refused or dropped resource → the proxy's message, until it applies that resource or is told to remove it. */
  readonly rejected = new Map<string, string>();
  private initialized = false;
  /** The snapshot of the last push: a push of another one is a new configuration, retried promptly. */
  private lastPushed: VersionedSnapshot | null = null;
  private seq = 0;
  private resendAttempt = 0;
  private resendTimer: NodeJS.Timeout | undefined;
  /** When the stream subscribed (wall clock, ms). */
  readonly since: number;
  /** The snapshot version of the last response the proxy applied whole. */
  appliedVersion = '';
  lastReply: LastReply | undefined;

  constructor(
    readonly id: number,
    readonly gateway: string,
    readonly pod: string,
    readonly peer: string,
    private readonly call: grpc.ServerDuplexStream<DeltaRequest, DeltaResponse>,
    held: Record<string, string>,
    private readonly deps: ConnectionDeps,
  ) {
    this.own = new Map(Object.entries(held));
    this.since = (deps.now ?? Date.now)();
  }

  /** Sends what the proxy lacks of the gateway's snapshot (the first response even when empty). */
  push(): void {
    const snap = this.deps.snapshot();
    if (!snap || (this.initialized && this.base === snap)) return;
    // The common case: the proxy holds the previous snapshot, so the gateway's shared delta is its diff.
    const shared = this.base !== null && snap.delta?.from === this.base ? snap.delta : undefined;
    const diff = shared ? shared.diff : diffSnapshot(this.own ?? this.base!.versions, snap);
    const empty = diff.upserts.length === 0 && diff.removes.length === 0;
    const first = !this.initialized;
    this.initialized = true;
    if (snap !== this.lastPushed) {
      // A new configuration: a refusal of it is retried from the shortest delay again.
      this.resendAttempt = 0;
      this.close();
    }
    this.lastPushed = snap;
    this.base = snap;
    this.own = null;
    if (empty && !first) return;
    const nonce = `${this.id}.${++this.seq}`;
    // A proxy that never answers must not grow this map without bound; its oldest nonces are forgotten.
    if (this.inflight.size >= MAX_INFLIGHT) this.inflight.delete(this.inflight.keys().next().value!);
    const names = shared ? shared.names : [...diff.upserts.map((r) => r.name), ...diff.removes];
    this.inflight.set(nonce, { at: performance.now(), names, systemVersion: snap.systemVersion });
    const encoded = shared
      ? (shared.encoded ??= encodeShared(diff.upserts, diff.removes, snap.systemVersion))
      : encodeShared(diff.upserts, diff.removes, snap.systemVersion);
    // The serializer (src/xds/wire.ts) takes the pre-encoded form; the call's type names the decoded one.
    this.call.write(new EncodedResponse(encoded.head, encoded.tail, nonce) as unknown as DeltaResponse);
    this.deps.metrics.pushes.inc();
    this.deps.log.debug(
      { gateway: this.gateway, pod: this.pod, nonce, upserts: diff.upserts.length, removes: diff.removes.length },
      'xds push',
    );
  }

  /** The proxy's own copy of what it was sent, made on first write. */
  private ownSent(): Map<string, string> {
    if (!this.own) {
      this.own = new Map(this.base!.versions);
      this.base = null;
    }
    return this.own;
  }

  /** Books an ACK or NACK; undefined for a nonce this connection did not send (or forgot). */
  reply(req: DeltaRequest): ReplyOutcome | undefined {
    const nonce = req.responseNonce ?? '';
    const sent = this.inflight.get(nonce);
    const refused = refusalsOf(req);
    // A forgotten nonce (more than MAX_INFLIGHT unanswered) still tells what the proxy lacks when it NACKs.
    if (!sent && (refused.length === 0 || !this.sentBefore(nonce))) return undefined;
    this.inflight.delete(nonce);
    if (sent) this.deps.metrics.pushToAck.observe((performance.now() - sent.at) / 1000);
    const resolved: string[] = [];
    // Most ACKs resolve nothing: skip the walk over the sent names when nothing is refused.
    if (sent && this.rejected.size > 0) {
      const failed = new Set(refused.map((e) => e.name));
      for (const name of sent.names) {
        if (!failed.has(name) && this.rejected.delete(name)) resolved.push(name);
      }
    }
    // The proxy serves no version of these: the next push upserts each (or removes it, when the
    // snapshot no longer has it), whatever the server believed the proxy held.
    for (const e of refused) {
      this.rejected.set(e.name, e.message);
      this.ownSent().set(e.name, UNKNOWN_VERSION);
    }
    // Every refusal counts for what is re-sent; reports (logs, status) keep the first MAX_NACK_ERRORS.
    const errors = refused.slice(0, MAX_NACK_ERRORS);
    if (errors.length > 0 && sent?.systemVersion !== this.deps.snapshot()?.systemVersion) {
      // Later responses were built without knowing of this refusal, from a newer snapshot that may
      // have fixed its cause (a dependency back): send what the proxy lacks now.
      this.push();
    } else this.scheduleResend(errors.length > 0);
    const version = sent?.systemVersion ?? '';
    if (errors.length === 0) this.appliedVersion = version;
    this.lastReply = { ack: errors.length === 0 ? 'ACK' : 'NACK', at: (this.deps.now ?? Date.now)(), version, errors };
    return errors.length === 0 ? { ackedVersion: sent!.systemVersion, errors, resolved } : { errors, resolved };
  }

  /** A nonce this connection sent (answered or forgotten since). */
  private sentBefore(nonce: string): boolean {
    const dot = nonce.lastIndexOf('.');
    const seq = Number(nonce.slice(dot + 1));
    return nonce.slice(0, dot) === String(this.id) && Number.isInteger(seq) && seq >= 1 && seq <= this.seq;
  }

  /** Sent again after a backoff even when nothing changes, in case the proxy's own state was the cause. */
  private scheduleResend(nacked: boolean): void {
    if (!nacked) {
      if (this.rejected.size === 0) this.resendAttempt = 0;
      return;
    }
    if (this.resendTimer) return;
    const delay = backoffDelay(
      this.resendAttempt++,
      this.deps.random ?? Math.random,
      this.deps.resendBackoff ?? RESEND_BACKOFF,
    );
    this.resendTimer = setTimeout(() => {
      this.resendTimer = undefined;
      try {
        this.push();
      } catch (err) {
        this.deps.log.error({ err, gateway: this.gateway, pod: this.pod }, 'xds re-send failed');
      }
    }, delay);
    this.resendTimer.unref();
  }

  /** Ends the stream from the server's side. */
  abort(code: grpc.status, details: string): void {
    this.close();
    this.call.emit('error', { code, details });
  }

  close(): void {
    if (this.resendTimer) clearTimeout(this.resendTimer);
    this.resendTimer = undefined;
  }
}

/** The refused and dropped resources a request reports, each bounded in length. */
function refusalsOf(req: DeltaRequest): ResourceRefusal[] {
  const clipped = (list: ResourceError[] | undefined, dropped: boolean) =>
    (list ?? []).map((e) => ({ name: clip(e.name), message: clip(e.message), ...(dropped ? { dropped } : {}) }));
  return [...clipped(req.errors, false), ...clipped(req.dropped, true)];
}
