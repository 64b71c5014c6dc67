// Graceful shutdown of the traffic listeners (docs/proxy.md "Shutdown"): after the minimum delay the
// listeners stop accepting, every response closes its connection instead of keeping it alive, idle
// keep-alive connections are closed, and long-lived GET event streams are ended so their clients reconnect
// elsewhere; requests in flight finish. Whatever is still open at the maximum delay is cut.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How long the proxy keeps serving after SIGTERM, and how long it waits for requests in flight. */
export interface DrainPlan {
  /** Keep serving normally (unready) for this long, so load balancers stop sending first. */
  minMs: number;
  /** Cut whatever is still open this long after the signal. */
  maxMs: number;
}

/** Answers that are event streams a client resumes elsewhere (A2A SubscribeToTask): a drain ends them too. */
const resumable = new WeakSet<ServerResponse>();

/** Marks `res` as a stream its client resumes: a drain ends it like an MCP GET stream. */
export function endsOnDrain(res: ServerResponse): void {
  resumable.add(res);
}

/** Responses in flight, so a drain can end the long-lived GET streams among them. */
export class InFlight {
  private readonly open = new Set<{ req: IncomingMessage; res: ServerResponse }>();
  /** Set once draining: responses from then on close their connection. */
  closing = false;

  track(req: IncomingMessage, res: ServerResponse): void {
    if (this.closing) res.shouldKeepAlive = false;
    const entry = { req, res };
    this.open.add(entry);
    res.once('close', () => this.open.delete(entry));
  }

  /** Ends every GET whose answer is an event stream (an MCP session's stream), and resumable ones; the client reconnects. */
  endEventStreams(): number {
    let ended = 0;
    for (const { req, res } of this.open) {
      // A GET that asked for an event stream (its headers may have gone out with writeHead, unreadable here).
      const getStream = req.method === 'GET' && String(req.headers.accept ?? '').includes('text/event-stream');
      if (!getStream && !resumable.has(res)) continue;
      res.end();
      ended++;
    }
    return ended;
  }

  /** Marks requests already being answered to close their connection when done. */
  closeAfterResponse(): void {
    this.closing = true;
    for (const { res } of this.open) if (!res.headersSent) res.shouldKeepAlive = false;
  }
}

/** Stops accepting on `servers` and waits up to `budgetMs` for their connections to end; then cuts the rest. */
export async function drainServers(
  servers: Server[],
  inFlight: InFlight,
  budgetMs: number,
): Promise<'drained' | 'cut'> {
  inFlight.closeAfterResponse();
  const closed = Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  inFlight.endEventStreams();
  // A keep-alive connection that turns idle after its last response is closed within 100 ms.
  const sweep = setInterval(() => {
    for (const s of servers) s.closeIdleConnections();
  }, 100);
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    closed.then(() => 'drained' as const),
    new Promise<'cut'>((resolve) => (timer = setTimeout(() => resolve('cut'), Math.max(0, budgetMs)))),
  ]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (outcome === 'cut') for (const s of servers) s.closeAllConnections();
  return outcome;
}
