// HTTP client for remote processors: one keep-alive pool per processor, a deadline per call, a cap
// on the answer's size. A failure comes back as an Error whose message is safe to log (no headers,
// no body, no query string).
import { Agent, request } from '../../http/undici.js';
import { type ProcessorRequest, type Verdict, parseVerdict } from './contract.js';

/** Per call, connect to last byte; processors sit on the hot path of every guarded call. */
export const defaultTimeoutMs = 10_000;
const maxAnswerBytes = 16 * 1024 * 1024;

export interface ProcessorClient {
  ask(body: ProcessorRequest): Promise<Verdict | Error>;
  close(): Promise<void>;
}

export function processorClient(url: string, timeoutMs: number = defaultTimeoutMs): ProcessorClient {
  // Idle connections close well before a snapshot swap could strand many of them.
  const agent = new Agent({ connections: 100, keepAliveTimeout: 30_000, connect: { timeout: timeoutMs } });
  return {
    async ask(body) {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
        });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > maxAnswerBytes) {
            res.body.destroy();
            return new Error(`the answer is larger than ${maxAnswerBytes} bytes`);
          }
          chunks.push(chunk);
        }
        if (res.statusCode !== 200) return new Error(`answered HTTP ${res.statusCode}`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return new Error('the answer is not JSON');
        }
        return parseVerdict(parsed, body.phase);
      } catch (err) {
        if (signal.aborted) return new Error(`no answer within ${timeoutMs} ms`);
        const e = err as NodeJS.ErrnoException;
        return new Error(`cannot be reached: ${e.code ?? e.message}`);
      }
    },
    close: () => agent.close(),
  };
}

/** Scheme, host and path of a processor URL: enough to find it in logs, without a query that may hold a key. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}
