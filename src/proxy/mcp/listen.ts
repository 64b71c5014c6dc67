// `subscriptions/listen` of a 2026-07-28 client through the proxy: the client's filter goes to every
// 2026 target as its own listen; 2025 targets deliver through their GET stream, and its
// `resourceSubscriptions` become `resources/subscribe` in their target sessions (unsubscribed at the end). The client gets one
// `notifications/subscriptions/acknowledged` once every 2026 target has acknowledged (or failed), then
// the targets' notifications the filter asks for, stamped with the client's subscription id, until it
// closes the stream.
import type { Notification } from '@modelcontextprotocol/sdk/types.js';
import { CallCancel } from './call-cancel.js';
import { type Id, type JsonRpcMessage, messageOf } from './jsonrpc.js';
import { subscriptionKey } from './modern.js';
import type { Upstream } from './target-connection.js';

/** A listen stream is long-lived: this only bounds a target that goes silent (SDK servers send keep-alives). */
const listenTimeoutMs = 24 * 60 * 60 * 1000;
/** resources/subscribe and unsubscribe at a 2025 target. */
const subscribeTimeoutMs = 30_000;

/** The client's listen stream (session.ts Sink). */
interface Sink {
  send(message: JsonRpcMessage): boolean;
}

export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

export class Listen {
  private readonly pending = new Set<string>();
  private readonly cancel = new CallCancel();
  /** 2025 targets and the URIs subscribed there, unsubscribed when the listen ends. */
  private readonly subscribed: { up: Upstream; uri: string }[] = [];
  private acked: (() => void) | undefined;
  readonly acknowledged: Promise<void>;

  constructor(
    private readonly id: Id,
    private readonly sink: Sink,
    private readonly filter: ListenFilter,
    private readonly log: { debug(o: object, msg: string): void },
  ) {
    this.acknowledged = new Promise((resolve) => {
      this.acked = resolve;
    });
  }

  /** Opens the targets' own listens (2026 targets); 2025 targets count as acknowledged once connected. */
  start(targets: readonly Upstream[]): void {
    for (const u of targets) {
      if (!u.supportedVersions) {
        this.subscribe(u);
        continue;
      }
      this.pending.add(u.name);
      u.call(
        'subscriptions/listen',
        { notifications: this.filter },
        { cancel: this.cancel, timeoutMs: listenTimeoutMs },
      )
        .catch((err: unknown) => {
          if (!this.cancel.aborted) this.log.debug({ target: u.name, err: messageOf(err) }, 'target listen ended');
        })
        .finally(() => this.ack(u.name));
    }
    if (this.pending.size === 0) this.acked?.();
  }

  /** Sends the one acknowledgement the client gets. */
  acknowledge(): void {
    this.sink.send({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { ...this.filter }, _meta: { [subscriptionKey]: this.id } },
    });
  }

  /** A target's notification: its acknowledgement is counted, the rest passed on if the filter asks for it. */
  deliver(target: string, n: Notification): void {
    if (n.method === 'notifications/subscriptions/acknowledged') return this.ack(target);
    if (!this.wants(n)) return;
    const params = (n.params ?? {}) as Record<string, unknown>;
    const meta = params._meta !== null && typeof params._meta === 'object' ? params._meta : {};
    this.sink.send({
      jsonrpc: '2.0',
      method: n.method,
      params: { ...params, _meta: { ...meta, [subscriptionKey]: this.id } },
    });
  }

  /** Ends the targets' listens and the subscriptions made at 2025 targets. */
  async close(): Promise<void> {
    this.cancel.abort('the client closed its listen stream');
    await Promise.all(
      this.subscribed.map(({ up, uri }) =>
        up.call('resources/unsubscribe', { uri }, { timeoutMs: subscribeTimeoutMs }).catch(() => undefined),
      ),
    );
  }

  /**
   * A 2025 target that offers subscriptions gets `resources/subscribe` for each URI of the filter once its
   * GET stream (where `notifications/resources/updated` come) is open; it counts as acknowledged when all
   * are answered. A target that refuses a URI (not its resource) is left out for that URI.
   */
  private subscribe(u: Upstream): void {
    const uris = this.filter.resourceSubscriptions ?? [];
    if (uris.length === 0 || u.capabilities.resources?.subscribe !== true) return;
    const key = `${u.name} subscribe`;
    this.pending.add(key);
    void (async () => {
      await u.streamReady;
      await Promise.all(
        uris.map((uri) =>
          u.call('resources/subscribe', { uri }, { timeoutMs: subscribeTimeoutMs }).then(
            () => void this.subscribed.push({ up: u, uri }),
            (err: unknown) =>
              this.log.debug({ target: u.name, uri, err: messageOf(err) }, 'target refused a subscription'),
          ),
        ),
      );
    })().finally(() => this.ack(key));
  }

  private ack(target: string): void {
    if (this.pending.delete(target) && this.pending.size === 0) this.acked?.();
  }

  private wants(n: Notification): boolean {
    const f = this.filter;
    switch (n.method) {
      case 'notifications/tools/list_changed':
        return f.toolsListChanged === true;
      case 'notifications/prompts/list_changed':
        return f.promptsListChanged === true;
      case 'notifications/resources/list_changed':
        return f.resourcesListChanged === true;
      case 'notifications/resources/updated': {
        const uri = (n.params as { uri?: unknown } | undefined)?.uri;
        return typeof uri === 'string' && (f.resourceSubscriptions ?? []).includes(uri);
      }
      default:
        return false;
    }
  }
}
