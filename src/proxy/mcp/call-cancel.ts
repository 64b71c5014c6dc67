// A call's cancellation (the client's notifications/cancelled, the session closing), made an AbortSignal
// only when something needs one (a stdio target's SDK client, a retry's backoff, an SSE answer): most calls
// are never cancelled, and an AbortController with its listener per call showed in the proxy's profile.
export class CallCancel {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | undefined;
  private hook: ((reason: unknown) => void) | undefined;

  /** An AbortSignal that follows this cancellation, created on first use. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const hook = this.hook;
    this.hook = undefined;
    hook?.(reason);
    this.controller?.abort(reason);
  }

  /** The one request in flight for this call is told of an abort through `hook`; undefined removes it. */
  onAbort(hook: ((reason: unknown) => void) | undefined): void {
    this.hook = hook;
  }
}

/** The reason of a cancellation that only lets go of the call's stream: the target is not told, the call goes on there. */
export const detached = 'detached: the call goes on at the target';
