// A real policy server for the gRPC ext_authz tests: Open Policy Agent's Rego engine behind Envoy's
// envoy.service.auth.v3.Authorization service, built from Go modules by `make opa` (test/opa), started with
// a Rego policy on 127.0.0.1 and a free port it prints.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const binary = path.resolve(here, '../../opa/bin/gw-opa');
/** The tests' policy (allow by path and JWT claim, deny with a status and body, header changes). */
export const testPolicy = path.join(here, 'testdata/ext-authz.rego');

export class OpaServer {
  private constructor(
    readonly port: number,
    private readonly proc: ChildProcess,
    private readonly dir: string,
  ) {}

  /** Starts the server on `policy`; with `tls` it serves TLS with that certificate and key (PEM). */
  static async start(policy = testPolicy, tls?: { cert: string; key: string }): Promise<OpaServer> {
    if (!existsSync(binary))
      throw new Error(`${binary} is missing: run \`make opa\` (builds the test OPA ext_authz server from test/opa)`);
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-opa-'));
    const args = ['-policy', policy];
    if (tls) {
      writeFileSync(path.join(dir, 'tls.crt'), tls.cert);
      writeFileSync(path.join(dir, 'tls.key'), tls.key);
      args.push('-cert', path.join(dir, 'tls.crt'), '-key', path.join(dir, 'tls.key'));
    }
    const proc = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      proc.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening 127\.0\.0\.1:(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      proc.once('exit', (code) => reject(new Error(`the test OPA server exited (${code}): ${stderr.slice(-2000)}`)));
    });
    return new OpaServer(port, proc, dir);
  }

  /** The server's process id (the benchmark reads its CPU time from /proc). */
  get pid(): number {
    return this.proc.pid ?? 0;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      this.proc.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** An unsigned-looking bearer token carrying `claims` (the test policy decodes it; nothing verifies it). */
export function bearer(claims: Record<string, unknown>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `Bearer ${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.${Buffer.from('sig').toString('base64url')}`;
}
