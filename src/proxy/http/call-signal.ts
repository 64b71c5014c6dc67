// The abort signal of one proxied call: its deadline and its client going away abort the upstream request.
// A plain object with the AbortSignal members its readers use (undici takes any object with addEventListener):
// an AbortController per request and undici's EventTarget listener on it were 2 % of an LLM call's CPU.

/** What the upstream clients and the forwarders read of an abort signal; an AbortSignal is one. */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A CallSignal and its abort(): each listener runs once, in the order it was added. */
export class CallAbort implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners)
      try {
        l();
      } catch (err) {
        // As an EventTarget does: one listener's throw neither stops the others nor reaches the caller.
        queueMicrotask(() => {
          throw err;
        });
      }
  }
}
