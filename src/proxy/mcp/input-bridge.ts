// A 2026-07-28 client's call to a 2025 streamable-HTTP target that asks the client for input while it
// serves the call (sampling/createMessage, elicitation/create, roots/list as server-to-client requests):
// the client gets the 2026 multi round-trip answer (`resultType: "input_required"`, the target's requests
// as `inputRequests`, a sealed `requestState`), and its retry with `inputResponses` is delivered to the
// target as JSON-RPC responses in the held target session, whose call then gives the final result. The
// continuation travels in the sealed requestState; which replica can continue it: docs/proxy.md
// "Input requests of a 2025 target".
import { randomBytes } from 'node:crypto';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { detached } from './call-cancel.js';
import { InternalError } from './jsonrpc.js';
import { nameOf } from './modern.js';
import { RpcError } from './rpc-error.js';
import type { SessionSealer } from './session-seal.js';
import type { Upstream } from './target-connection.js';
import type { CallOptions } from './upstream-http.js';

/** The prefix of a requestState this bridge issued (a 2026 target's own state is wrapped as `gw1.`). */
const statePrefix = 'gwb.';
const sealPurpose = 'gw mcp input continuation v1';

/** One of the target's requests to the client, as the client is asked it. */
interface InputAsk {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** What the client's requestState carries, sealed: enough for a replica to continue the call. */
export interface Continuation {
  target: string;
  sessionId: string;
  protocolVersion?: string;
  /** The request it continues: a retry of another method or name is refused. */
  method: string;
  name?: string;
  /** `iss` + `sub` of the caller, when authenticated: another caller's retry is refused. */
  subject?: string;
  /** The call's JSON-RPC id at the target. */
  callId: string;
  /** A target that gives SSE event ids: the event the call's stream is picked up after, on any replica. */
  from?: string;
  /** A target without event ids: the key of the call this replica holds. */
  held?: string;
  /** The target's requests the client answers, by key (the target's request id). */
  asks: Record<string, InputAsk>;
  /** Keys answered in earlier rounds: a resumed stream replays them, and they are not asked again. */
  answered: string[];
  expiresAt: number;
}

/** A pending request of the target, until the client answers it (or the call ends). */
interface Pending extends InputAsk {
  key: string;
  eventId: string | undefined;
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
}

/** A call held by this replica (its target gives no event ids, so only this replica's stream can finish it). */
interface HeldCall {
  bridge: InputBridge;
  up: Upstream;
  call: Promise<Record<string, unknown>>;
  pending: Map<string, Pending>;
  /** Cancels the call when its requestState expires unanswered. */
  expiry?: NodeJS.Timeout;
}

/** Why a retry of a call held by another replica (or ended) cannot go on here. */
export const heldElsewhere =
  'the call this requestState continues is held by another gateway replica (its target gives no SSE event ids, so no other replica can pick it up) or has ended; send the request again without requestState';

/** The calls one proxy process (one runtime) holds, by the key their requestState names. */
export type HeldCalls = Map<string, HeldCall>;

/** Guardrails' view of an answer to one of the target's requests (session.ts): the answer as the target gets it. */
export type GuardAnswer = (
  target: string,
  ask: InputAsk,
  answer: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

export interface BridgeOptions {
  sealer: SessionSealer;
  held: HeldCalls;
  guard: GuardAnswer;
  /** How long the client has to answer (the requestState's lifetime), within the call's own timeout. */
  answerWithinMs: number;
}

export function isBridgeState(v: unknown): v is string {
  return typeof v === 'string' && v.startsWith(statePrefix);
}

/** The continuation a genuine, unexpired requestState of this bridge carries; undefined for anything else. */
export function openContinuation(sealer: SessionSealer, state: unknown): Continuation | undefined {
  if (!isBridgeState(state)) return undefined;
  const c = sealer.openValue(sealPurpose, state.slice(statePrefix.length)) as Continuation | undefined;
  return isObject(c) && typeof c.expiresAt === 'number' && c.expiresAt > Date.now() ? c : undefined;
}

export class InputBridge {
  private readonly pending = new Map<string, Pending>();
  private wake: (() => void) | undefined;
  /** Target sessions handed to the client's requestState (not ended with the request) or to a held call (not closed). */
  readonly kept = new Set<string>();
  readonly handedOver = new Set<string>();
  private answered = new Set<string>();

  constructor(private readonly opts: BridgeOptions) {}

  /** Whether a call to this target goes through the bridge: a 2025 target reached over streamable HTTP. */
  bridges(up: Upstream): boolean {
    return !up.supportedVersions && up.respond !== undefined && up.resumeCall !== undefined;
  }

  /** A target's request to the client while a call is in flight: settled when the client answers it on a retry. */
  ask(target: string, r: JSONRPCRequest, signal: AbortSignal, eventId?: string): Promise<Record<string, unknown>> {
    const key = String(r.id);
    return new Promise((resolve, reject) => {
      // A resumed stream replays requests answered in an earlier round: the target has their answers.
      if (this.answered.has(key)) return;
      const p: Pending = {
        key,
        id: r.id,
        method: r.method,
        ...(r.params ? { params: r.params as Record<string, unknown> } : {}),
        eventId,
        resolve,
        reject,
      };
      this.pending.set(key, p);
      signal.addEventListener(
        'abort',
        () => {
          if (this.pending.get(key) === p) this.pending.delete(key);
          reject(new RpcError(InternalError, `the call to ${target} ended`));
        },
        { once: true },
      );
      this.wake?.();
    });
  }

  /** A first call: its result, or the input_required answer asking for what the target asked. */
  async call(
    up: Upstream,
    method: string,
    params: Record<string, unknown>,
    exposed: Record<string, unknown>,
    subject: string | undefined,
    opts: CallOptions,
  ): Promise<Record<string, unknown>> {
    let callId = '';
    const call = up.call(method, params, { ...opts, onId: (id) => (callId = id) });
    const base = { method, ...nameField(method, exposed), ...(subject !== undefined ? { subject } : {}), answered: [] };
    return this.settle(up, call, () => callId, base, opts);
  }

  /** The continuation a retry carries, or why it is refused. */
  open(req: { method: string; params?: Record<string, unknown> }, subject: string | undefined): Continuation | string {
    const p = req.params ?? {};
    const c = openContinuation(this.opts.sealer, p.requestState);
    if (!c) return 'Invalid params: requestState is not one this gateway issued, or it expired';
    const name = nameOf(req.method, p);
    if (c.method !== req.method || c.name !== name)
      return `Invalid params: requestState continues ${c.method}${c.name !== undefined ? ` ${c.name}` : ''}, not this request`;
    if (c.subject !== subject) return 'Invalid params: requestState was issued to another caller';
    const answers = isObject(p.inputResponses) ? p.inputResponses : {};
    const missing = Object.keys(c.asks).find((k) => !isObject(answers[k]));
    if (missing !== undefined) return `Invalid params: inputResponses has no answer for ${JSON.stringify(missing)}`;
    return c;
  }

  /** The target of a continuation held by this replica, if it holds it. */
  heldUpstream(c: Continuation): Upstream | undefined {
    return c.held === undefined ? undefined : this.opts.held.get(c.held)?.up;
  }

  /** A retry: the answers go to the target, then the call goes on (held here, or picked up from its event). */
  async resume(
    up: Upstream,
    c: Continuation,
    params: Record<string, unknown>,
    opts: CallOptions,
  ): Promise<Record<string, unknown>> {
    const answers = isObject(params.inputResponses) ? params.inputResponses : {};
    const base = {
      method: c.method,
      ...(c.name !== undefined ? { name: c.name } : {}),
      ...(c.subject !== undefined ? { subject: c.subject } : {}),
      answered: [...c.answered, ...Object.keys(c.asks)],
    };
    if (c.held !== undefined) {
      const held = this.opts.held.get(c.held);
      if (!held) throw new RpcError(InternalError, heldElsewhere);
      this.opts.held.delete(c.held);
      clearTimeout(held.expiry);
      // The held call's own guardrail chain (session.ts fromTarget) sees each answer on its way to the target.
      for (const [key, p] of held.pending) p.resolve(answers[key] as Record<string, unknown>);
      held.pending.clear();
      return held.bridge.settle(up, held.call, () => c.callId, base, opts);
    }
    this.answered = new Set(base.answered);
    for (const [key, ask] of Object.entries(c.asks)) {
      const answer = await this.opts.guard(c.target, ask, answers[key] as Record<string, unknown>).then(
        (result) => ({ result }),
        (err: unknown) => ({ error: errorBody(err) }),
      );
      await up.respond?.(ask.id, answer);
    }
    const call = up.resumeCall?.(c.callId, c.from ?? '', opts) ?? Promise.reject(new Error('not resumable'));
    return this.settle(up, call, () => c.callId, base, opts);
  }

  /** Waits for the call's answer or the target's next requests for input, and answers the client either way. */
  private async settle(
    up: Upstream,
    call: Promise<Record<string, unknown>>,
    callId: () => string,
    base: Pick<Continuation, 'method' | 'name' | 'subject' | 'answered'>,
    opts: CallOptions,
  ): Promise<Record<string, unknown>> {
    if (this.pending.size === 0) {
      const asked = new Promise<undefined>((resolve) => (this.wake = () => resolve(undefined)));
      const done = await Promise.race([call, asked]).finally(() => (this.wake = undefined));
      if (done) {
        if (this.handedOver.delete(up.name)) void up.close(true); // a held call's target session ends with it
        return done;
      }
    }
    // Requests the target sent together arrive together: the rest of this chunk is read first.
    await new Promise((resolve) => setImmediate(resolve));
    const asks = [...this.pending.values()];
    const from = asks[0]?.eventId;
    const sessionId = up.sessionId();
    if (!sessionId) throw new RpcError(InternalError, `target ${up.name} asked for input outside a session`);
    const c: Continuation = {
      ...base,
      target: up.name,
      sessionId,
      ...(up.protocolVersion() !== undefined ? { protocolVersion: up.protocolVersion() as string } : {}),
      callId: callId(),
      asks: Object.fromEntries(asks.map((a) => [a.key, inputAsk(a)])),
      expiresAt: Date.now() + Math.min(opts.timeoutMs, this.opts.answerWithinMs),
    };
    call.catch(() => undefined);
    if (from !== undefined && asks.every((a) => a.eventId !== undefined)) {
      // The target keeps the call and its events: this replica lets go of the stream without cancelling it.
      c.from = from;
      this.kept.add(up.name);
      opts.cancel?.abort(detached);
    } else {
      c.held = randomBytes(16).toString('base64url');
      this.handedOver.add(up.name);
      this.hold(c.held, { bridge: this, up, call, pending: new Map(this.pending) }, c.expiresAt, opts);
    }
    this.pending.clear();
    return {
      resultType: 'input_required',
      inputRequests: Object.fromEntries(
        asks.map((a) => [a.key, { method: a.method, ...(a.params ? { params: a.params } : {}) }]),
      ),
      requestState: statePrefix + this.opts.sealer.sealValue(sealPurpose, c),
    };
  }

  /**
   * Until the retry takes it, the call ends, or its requestState expires unanswered: then the call is
   * cancelled and the target session it runs in ended, since no retry can open that state any more.
   */
  private hold(key: string, held: HeldCall, expiresAt: number, opts: CallOptions): void {
    this.opts.held.set(key, held);
    const end = (): void => {
      if (this.opts.held.get(key) !== held) return;
      this.opts.held.delete(key);
      clearTimeout(held.expiry);
      for (const p of held.pending.values()) p.reject(new RpcError(InternalError, 'the client did not answer'));
      void held.up.close(true);
    };
    held.expiry = setTimeout(() => {
      opts.cancel?.abort('the client did not answer before its requestState expired');
      end();
    }, expiresAt - Date.now());
    held.expiry.unref();
    held.call.then(end, end);
  }
}

function inputAsk(a: Pending): InputAsk {
  return { id: a.id, method: a.method, ...(a.params ? { params: a.params } : {}) };
}

function nameField(method: string, params: Record<string, unknown>): { name?: string } {
  const name = nameOf(method, params);
  return name !== undefined ? { name } : {};
}

function errorBody(err: unknown): Record<string, unknown> {
  const e = err as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: Number.isSafeInteger(e.code) ? e.code : InternalError,
    message: typeof e.message === 'string' ? e.message : 'Internal error',
    ...(e.data !== undefined ? { data: e.data } : {}),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
