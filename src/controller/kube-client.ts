// The controller's REST access to the API server. @kubernetes/client-node loads the kubeconfig (file,
// KUBECONFIG or in-cluster) and supplies TLS material and credentials; requests and watch streams go
// through node:http(s) directly so timeouts, status codes and stream ends are ours to handle.
import http from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';

export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export function isStatus(err: unknown, ...codes: number[]): boolean {
  return err instanceof KubeApiError && codes.includes(err.status);
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export function loadKubeConfig(path?: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}

export class KubeClient {
  private readonly agent: http.Agent;
  private readonly server: URL;

  constructor(private readonly kc: KubeConfig) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig: no current cluster');
    this.server = new URL(cluster.server);
    const Agent = this.server.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 64 });
  }

  async request<T = Record<string, unknown>>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    const text = await readAll(res);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw apiError(status, text, method, path);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /**
   * Streams watch events to `onEvent` until the server ends the stream (resolves) or the connection
   * fails (rejects). A non-200 answer rejects with its status; `signal` ends the stream quietly.
   */
  async watch(
    path: string,
    query: RequestOptions['query'],
    onEvent: (e: WatchEvent) => void,
    signal: AbortSignal,
    idleMs: number,
  ): Promise<void> {
    const res = await this.send('GET', path, { query: { ...query, watch: true }, signal, timeoutMs: idleMs });
    const status = res.statusCode ?? 0;
    if (status !== 200) throw apiError(status, await readAll(res), 'WATCH', path);
    await new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: res });
      lines.on('line', (line) => {
        if (!line.trim()) return;
        try {
          onEvent(JSON.parse(line) as WatchEvent);
        } catch (err) {
          res.destroy(err as Error);
        }
      });
      const fail = (err: Error) => (signal.aborted ? resolve() : reject(err));
      // readline re-emits errors of its input; both must be handled or a dropped connection crashes the process.
      lines.on('error', fail);
      res.on('error', fail);
      res.on('close', () =>
        res.complete || signal.aborted ? resolve() : reject(new Error('watch stream closed before it ended')),
      );
    });
  }

  private async send(method: string, path: string, opts: RequestOptions): Promise<http.IncomingMessage> {
    const url = new URL(this.server.pathname.replace(/\/$/, '') + path, this.server);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const options: https.RequestOptions = { method, agent: this.agent, headers: { accept: 'application/json' } };
    await this.kc.applyToHTTPSOptions(options);
    const body =
      opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    if (body !== undefined)
      options.headers = {
        ...options.headers,
        'content-type': opts.contentType ?? 'application/json',
        'content-length': Buffer.byteLength(body),
      };
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.request(url, options, resolve);
      req.on('error', reject);
      // An idle socket (half-open connection, paused server) fails the request instead of hanging.
      req.setTimeout(opts.timeoutMs ?? 30_000, () =>
        req.destroy(new Error(`${method} ${path}: no response within ${opts.timeoutMs ?? 30_000} ms`)),
      );
      const signal = opts.signal;
      if (signal) {
        const onAbort = () => req.destroy(new Error('aborted'));
        if (signal.aborted) onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        req.on('close', () => signal.removeEventListener('abort', onAbort));
      }
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function readAll(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

function apiError(status: number, text: string, method: string, path: string): KubeApiError {
  let reason = '';
  let message = text.slice(0, 300);
  try {
    const s = JSON.parse(text) as { reason?: string; message?: string };
    reason = s.reason ?? '';
    message = s.message ?? message;
  } catch {
    // Not a Status object (a proxy in between, or an empty body): keep the text.
  }
  return new KubeApiError(status, reason, `${method} ${path}: ${status} ${reason ? `${reason}: ` : ''}${message}`);
}
