// The real ext_proc server of the tests: the binary `make extproc` builds from Go modules (test/extproc), on
// go-control-plane's Envoy types. What it answers is chosen by the request header `x-extproc-do`; every
// message it received comes back here as it decoded it (protojson), so a field Gw writes under a wrong
// number shows up as missing.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const binary = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../extproc/bin/gw-extproc');

interface WireHeader {
  key: string;
  value?: string;
  rawValue?: string;
}
/** One ProcessingRequest as the server decoded it (protojson: camelCase names, bytes in base64). */
export interface SeenMessage {
  requestHeaders?: { headers?: { headers?: WireHeader[] }; endOfStream?: boolean };
  responseHeaders?: { headers?: { headers?: WireHeader[] }; endOfStream?: boolean };
  requestBody?: { body?: string; endOfStream?: boolean };
  responseBody?: { body?: string; endOfStream?: boolean };
  requestTrailers?: { trailers?: { headers?: WireHeader[] } };
  responseTrailers?: { trailers?: { headers?: WireHeader[] } };
  metadataContext?: { filterMetadata?: Record<string, Record<string, unknown>> };
  attributes?: Record<string, Record<string, unknown>>;
}

/** A header of a decoded HeaderMap, its value read from raw_value (as Envoy sends it) or value. */
export function headerOf(m: { headers?: WireHeader[] } | undefined, name: string): string | undefined {
  const h = m?.headers?.find((x) => x.key === name);
  if (!h) return undefined;
  return h.rawValue ? Buffer.from(h.rawValue, 'base64').toString() : h.value;
}

export const bodyOf = (b: { body?: string } | undefined): string => Buffer.from(b?.body ?? '', 'base64').toString();

export class ExtProcServer {
  private readonly lines: { stream: number; request: SeenMessage }[] = [];
  /** Emits 'line' for each message recorded. */
  private readonly recorded = new EventEmitter();

  private constructor(
    readonly url: string,
    private readonly proc: ChildProcess,
  ) {}

  /**
   * `args`: extra flags, e.g. `-quiet` (benchmarks: no message recorded). With `tls` it serves TLS with that
   * certificate and key (PEM) and its url is grpcs://.
   */
  static async start(args: string[] = [], tls?: { cert: string; key: string }): Promise<ExtProcServer> {
    if (!existsSync(binary))
      throw new Error(`${binary} is missing: run \`make extproc\` (builds the test ext_proc server from test/extproc)`);
    if (tls) {
      const dir = mkdtempSync(path.join(tmpdir(), 'gw-extproc-'));
      writeFileSync(path.join(dir, 'tls.crt'), tls.cert);
      writeFileSync(path.join(dir, 'tls.key'), tls.key);
      args = [...args, '-cert', path.join(dir, 'tls.crt'), '-key', path.join(dir, 'tls.key')];
    }
    const scheme = tls ? 'grpcs' : 'grpc';
    const proc = spawn(binary, ['-addr', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const rl = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
    let server: ExtProcServer | undefined;
    return new Promise((resolve, reject) => {
      proc.once('exit', (code) =>
        reject(new Error(`the test ext_proc server exited (${code}): ${stderr.slice(-2000)}`)),
      );
      rl.on('line', (line) => {
        const listening = /^listening (\S+)$/.exec(line);
        if (listening) {
          server = new ExtProcServer(`${scheme}://${listening[1]}`, proc);
          resolve(server);
        } else if (server) {
          server.lines.push(JSON.parse(line) as { stream: number; request: SeenMessage });
          server.recorded.emit('line');
        }
      });
    });
  }

  /** Every message of the stream whose request headers carried `x-test: id`, in the order received. */
  stream(id: string): SeenMessage[] {
    const first = this.lines.find((l) => headerOf(l.request.requestHeaders?.headers, 'x-test') === id);
    return first ? this.lines.filter((l) => l.stream === first.stream).map((l) => l.request) : [];
  }

  /**
   * The first message of `id`'s stream that `pick` accepts, once the server's record of it has arrived. The server
   * prints each message before it answers, but the record comes over its stdout pipe and the answer over gRPC to the
   * proxy: a response-phase record can reach this process after the client already has its answer.
   */
  async message(id: string, pick: (m: SeenMessage) => boolean): Promise<SeenMessage> {
    for (;;) {
      const found = this.stream(id).find(pick);
      if (found) return found;
      await once(this.recorded, 'line');
    }
  }

  /** Every message of every stream whose request headers carried `x-test: id` (a client's several requests). */
  streamsOf(id: string): SeenMessage[] {
    const ids = new Set(
      this.lines.filter((l) => headerOf(l.request.requestHeaders?.headers, 'x-test') === id).map((l) => l.stream),
    );
    return this.lines.filter((l) => ids.has(l.stream)).map((l) => l.request);
  }

  /** How many streams were opened so far. */
  streams(): number {
    return new Set(this.lines.map((l) => l.stream)).size;
  }

  /** The server process's id (benchmarks read its CPU time). */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((resolve) => this.proc.once('exit', resolve));
    this.proc.kill();
    await exited;
  }
}
