// Target sessions that end under a live client session: a target that restarted answers 404, a stdio
// process may exit. The session re-initializes that target (replaying initialize and
// notifications/initialized with the client's capabilities) when it can tell the target restarted, and
// otherwise ends with 404 so the client initializes again; never a session that fails forever
// (docs/proxy.md "Target restarts").
import { RpcError } from './rpc-error.js';
import type { Logger } from 'pino';
import type { McpBackend, McpTarget } from '../../ir/types.js';
import { InternalError, messageOf } from './jsonrpc.js';
import type { SealedTarget } from './session-seal.js';
import { targetKnowsSession } from './target-session.js';
import { TargetSessionGone, type UpstreamCall } from './upstream-http.js';
import type { Upstream } from './target-connection.js';

/** The client session no longer exists anywhere: the endpoint answers 404 and forgets it. */
export class SessionGone extends Error {}

export interface RecoveryHost {
  backend: McpBackend;
  upstreams: Map<string, Upstream>;
  /** The target sessions the id was sealed with; a 404 from one is a restart only while another still knows its own. */
  sealed(): SealedTarget[] | undefined;
  /** A fresh target session, initialized with the client's capabilities. */
  connect(target: McpTarget): Promise<Upstream>;
  /** Wraps the upstream's calls once more, outside recovery (passive health, target-health.ts). */
  guard?(up: Upstream): Upstream;
  log: Logger;
}

export class TargetRecovery {
  private readonly pending = new Map<string, Promise<Upstream>>();
  private readonly raw = new WeakMap<Upstream, UpstreamCall>();

  constructor(private readonly host: RecoveryHost) {}

  /** Routes the upstream's calls through recovery: a 404 re-initializes the target and the call is sent once more. */
  wrap(up: Upstream): Upstream {
    const raw = up.call;
    this.raw.set(up, raw);
    up.call = async (method, params, opts) => {
      try {
        return await raw(method, params, opts);
      } catch (err) {
        if (!(err instanceof TargetSessionGone)) throw err;
        const fresh = await this.recover(up.name, true);
        // 404 means the target never saw the call, so sending it again is safe; once only.
        return (this.raw.get(fresh) ?? fresh.call)(method, params, opts);
      }
    };
    return this.host.guard ? this.host.guard(up) : up;
  }

  /** A live connection to the target: revives a dead process-local one. */
  async live(name: string): Promise<Upstream | undefined> {
    const up = this.host.upstreams.get(name);
    if (!up || up.alive) return up;
    return up.processLocal ? this.recover(name, false) : undefined;
  }

  /** One recovery per target at a time; concurrent calls share it. */
  recover(name: string, gone: boolean): Promise<Upstream> {
    let p = this.pending.get(name);
    if (!p) {
      p = this.reconnect(name, gone).finally(() => this.pending.delete(name));
      this.pending.set(name, p);
    }
    return p;
  }

  private async reconnect(name: string, gone: boolean): Promise<Upstream> {
    const { backend, upstreams, log } = this.host;
    const target = backend.targets.find((t) => t.name === name);
    if (!target) throw new SessionGone(`target ${name} is no longer configured`);
    if (gone && !(await this.anotherTargetKnowsSession(name))) {
      // Every target session of this client session is gone: ended by DELETE on some replica, or all restarted.
      throw new SessionGone('the targets no longer know this session');
    }
    const old = upstreams.get(name);
    if (old) old.alive = false;
    try {
      const fresh = this.wrap(await this.host.connect(target));
      upstreams.set(name, fresh);
      log.info({ target: name, restarted: gone }, 'target session re-initialized');
      return fresh;
    } catch (err) {
      log.warn({ target: name, err: messageOf(err) }, 'target session could not be re-initialized');
      if (backend.failureMode === 'FAIL_OPEN')
        throw new RpcError(InternalError, `target ${name} is not connected: ${messageOf(err)}`);
      // FailClosed: end the session, so the rule applies again at the client's next initialize.
      throw new SessionGone(`target ${name} lost the session and could not be re-initialized`);
    }
  }

  private async anotherTargetKnowsSession(name: string): Promise<boolean> {
    const witnesses = (this.host.sealed() ?? []).filter((s) => s.name !== name && s.sessionId);
    const checks = witnesses.map(async (s) => {
      const t = this.host.backend.targets.find((x) => x.name === s.name);
      return t !== undefined && (await targetKnowsSession(t, s.sessionId ?? '', s.protocolVersion));
    });
    return (await Promise.all(checks)).some(Boolean);
  }
}
