// The client's SSE streams of one session, with event ids, and the bounded buffer a client that lost
// a stream replays from with GET + Last-Event-ID (MCP "Resumability and Redelivery").
// Event ids are `<stream>-<seq>`: stream 0 is the session's GET stream, 1… are POST answer streams;
// seq counts every event of the session, so "what came after" is a comparison.
import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage } from './jsonrpc.js';

/** How much a session keeps for replay: the newest events up to both bounds. */
export const replayBuffer = { events: 128, bytes: 256 * 1024 };

interface Logged {
  stream: number;
  seq: number;
  text: string;
}

/** The newest events of a session, oldest first, within `replayBuffer`. */
export class EventLog {
  private readonly events: Logged[] = [];
  private head = 0; // events before this index were evicted (compacted lazily)
  private bytes = 0;
  private seq = 0;
  /** Events up to this seq may have been evicted: a cursor before it cannot be replayed whole. */
  private evictedUpTo = 0;
  private nextStream = 1;

  constructor(private readonly limits = replayBuffer) {}

  newStream(): number {
    return this.nextStream++;
  }

  /**
   * Records one event and returns its wire text. `data` undefined is a priming event: an id and no
   * data, which marks a position and is never replayed. `keep` false gives the event its id without
   * recording it (nobody can ask for it again).
   */
  append(stream: number, data: string | undefined, keep = true): string {
    const seq = ++this.seq;
    const id = `${stream}-${seq}`;
    const text = data === undefined ? `id: ${id}\ndata: \n\n` : `id: ${id}\nevent: message\ndata: ${data}\n\n`;
    if (!keep) return text;
    this.events.push({ stream, seq, text: data === undefined ? '' : text });
    this.bytes += data === undefined ? 0 : text.length;
    while (
      this.events.length - this.head > this.limits.events ||
      (this.bytes > this.limits.bytes && this.events.length - this.head > 1)
    ) {
      const gone = this.events[this.head++];
      if (gone) {
        this.bytes -= gone.text.length;
        this.evictedUpTo = gone.seq;
      }
    }
    if (this.head > 64 && this.head * 2 > this.events.length) {
      this.events.splice(0, this.head);
      this.head = 0;
    }
    return text;
  }

  /**
   * Events of the stream after `seq`; `complete` is false when some of them were evicted (a client's
   * gap that cannot be filled whole).
   */
  after(stream: number, seq: number): { texts: string[]; complete: boolean } {
    const texts: string[] = [];
    for (let i = this.head; i < this.events.length; i++) {
      const e = this.events[i];
      if (e && e.stream === stream && e.seq > seq && e.text !== '') texts.push(e.text);
    }
    return { texts, complete: seq >= this.evictedUpTo };
  }

  /** True when `seq` is an id this log handed out. */
  issued(seq: number): boolean {
    return seq > 0 && seq <= this.seq;
  }
}

export function parseEventId(id: string): { stream: number; seq: number } | undefined {
  const m = /^(\d{1,9})-(\d{1,15})$/.exec(id);
  return m ? { stream: Number(m[1]), seq: Number(m[2]) } : undefined;
}

const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } as const;

/**
 * One SSE stream of a session (a POST's answer stream or the GET stream). Every event is logged
 * before it is written, so it survives the client's connection; a resuming GET attaches in its place.
 */
export class SseStream {
  private res: ServerResponse | undefined;
  /** The stream's last event went out (or was logged): a resume replays and ends. */
  finished = false;
  /** Events this stream has carried so far, the priming event included. */
  private sent = 0;

  /** Without a log (stateless routes) events carry no ids: there is no session to resume on. */
  constructor(
    readonly no: number,
    private readonly log: EventLog | undefined,
    private readonly sessionId: string,
  ) {}

  get open(): boolean {
    return this.res !== undefined && !this.res.writableEnded && !this.res.destroyed;
  }

  /** Serves the stream on `res` from now on (detaching any earlier response). */
  attach(res: ServerResponse): void {
    if (this.res && this.res !== res && !this.res.writableEnded) this.res.end();
    this.res = res;
  }

  /** Writes the headers now (GET streams, resumes): the client learns the stream is open. */
  start(res: ServerResponse): void {
    res.writeHead(200, this.sessionId ? { ...sseHeaders, 'mcp-session-id': this.sessionId } : sseHeaders);
    res.flushHeaders();
  }

  /** An empty event whose id lets the client resume a stream that has carried nothing else yet. */
  prime(): void {
    if (!this.log || this.sent > 0) return;
    this.sent++;
    this.write(this.log.append(this.no, undefined));
  }

  /** True when the client has it or can still get it (logged for a resume). */
  send(message: JsonRpcMessage): boolean {
    return this.write(this.event(message)) || this.log !== undefined;
  }

  /** Writes the stream's last event (if any) and ends it; a lone answer goes out with a content-length. */
  end(message?: JsonRpcMessage): void {
    // A lone answer (no priming event, nothing before it on this stream) is not kept for replay: a
    // client that lost it holds no id of this stream to resume from. The common call retains nothing.
    const text = message ? this.event(message, this.sent > 0 || this.no === 0) : '';
    this.finished = true;
    const res = this.res;
    if (!res || res.writableEnded || res.destroyed) return;
    if (!res.headersSent) {
      res.statusCode = 200;
      res.setHeader('content-type', sseHeaders['content-type']);
      res.setHeader('cache-control', sseHeaders['cache-control']);
      if (this.sessionId) res.setHeader('mcp-session-id', this.sessionId);
      res.setHeader('content-length', Buffer.byteLength(text));
    }
    res.end(text);
  }

  /** Replays what the client missed after `seq` onto `res`; false when part of it was evicted. */
  replay(res: ServerResponse, seq: number): boolean {
    if (!this.log) return false;
    const { texts, complete } = this.log.after(this.no, seq);
    for (const t of texts) res.write(t);
    return complete;
  }

  private event(message: JsonRpcMessage, keep = true): string {
    const data = JSON.stringify(message);
    this.sent++;
    return this.log ? this.log.append(this.no, data, keep) : `event: message\ndata: ${data}\n\n`;
  }

  private write(text: string): boolean {
    const res = this.res;
    if (!res || res.writableEnded || res.destroyed) return false;
    if (!res.headersSent) {
      res.statusCode = 200;
      res.setHeader('content-type', sseHeaders['content-type']);
      res.setHeader('cache-control', sseHeaders['cache-control']);
      if (this.sessionId) res.setHeader('mcp-session-id', this.sessionId);
    }
    res.write(text);
    return true;
  }
}

/**
 * Primes call streams that are still unanswered after `afterMs` (checked every `afterMs / 2` by one
 * shared timer), instead of every stream at once: a call answered sooner keeps the single-write,
 * content-length answer, and the calls worth resuming (the long ones) still get an id early.
 */
export class Primer {
  private readonly waiting = new Map<SseStream, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly afterMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  add(stream: SseStream): void {
    this.waiting.set(stream, this.now());
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), Math.max(1, this.afterMs / 2));
      this.timer.unref();
    }
  }

  delete(stream: SseStream): void {
    this.waiting.delete(stream);
  }

  /** Primes every stream waiting at least `afterMs`; stops the timer when none is left. */
  tick(): void {
    const due = this.now() - this.afterMs;
    for (const [stream, since] of this.waiting) {
      if (since > due) continue;
      this.waiting.delete(stream);
      if (!stream.finished) stream.prime();
    }
    if (this.waiting.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
