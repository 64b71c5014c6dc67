// A real HTTP forward proxy for the upstream tunnel tests: the binary `make forwardproxy` builds from Go
// modules (test/forwardproxy, elazarl/goproxy behind a Proxy-Authorization: Basic check). It reports each
// request it handled (a CONNECT target or an absolute-form URL) as a JSON line, read back here.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const binary = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../forwardproxy/bin/gw-forwardproxy');

export interface Handled {
  method: string;
  /** `host:port` for CONNECT, the absolute URL otherwise. */
  target: string;
  refused?: boolean;
}

export class ForwardProxy {
  readonly handled: Handled[] = [];

  private constructor(
    readonly address: string,
    private readonly proc: ChildProcess,
  ) {}

  /** The proxy with `user`/`password` required; `blackhole`: a listener that never accepts instead. */
  static start(opts: { user?: string; password?: string; blackhole?: boolean } = {}): Promise<ForwardProxy> {
    if (!existsSync(binary))
      throw new Error(
        `${binary} is missing: run \`make forwardproxy\` (builds the test forward proxy from test/forwardproxy)`,
      );
    const args = opts.blackhole ? ['-blackhole'] : ['-user', opts.user ?? '', '-password', opts.password ?? ''];
    const proc = spawn(binary, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    return new Promise((resolve, reject) => {
      let proxy: ForwardProxy | undefined;
      proc.once('error', reject);
      proc.once('exit', (code) => proxy ?? reject(new Error(`the forward proxy exited with ${code}`)));
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        if (!proxy) {
          const address = /^listening (\S+)$/.exec(line)?.[1];
          if (address) resolve((proxy = new ForwardProxy(address, proc)));
          return;
        }
        proxy.handled.push(JSON.parse(line) as Handled);
      });
    });
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((resolve) => this.proc.once('exit', resolve));
    this.proc.kill();
    await exited;
  }
}
