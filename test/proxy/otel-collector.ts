// A real OpenTelemetry Collector for the telemetry tests: the binary `make otelcol` builds from Go modules
// (test/otelcol), with the OTLP receiver (HTTP, or gRPC only) on a free port and the file exporter writing JSON
// lines, which the tests read back as the spans and log records the Collector received.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

const binary = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../otelcol/bin/gw-otelcol');

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}
export interface OtlpLogRecord {
  traceId?: string;
  spanId?: string;
  body?: { stringValue?: string };
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP attribute list as a plain object (intValue arrives as a string in OTLP JSON). */
export function attrs(list: OtlpSpan['attributes']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of list ?? []) {
    const v = a.value;
    out[a.key] = v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
  }
  return out;
}

export class Collector {
  private constructor(
    readonly url: string,
    private readonly proc: ChildProcess,
    private readonly dir: string,
    private readonly output: () => string,
  ) {}

  /** `protocol: 'grpc'` opens only the OTLP/gRPC receiver; `url` is then `grpc://127.0.0.1:<port>`. */
  static async start(protocol: 'http' | 'grpc' = 'http'): Promise<Collector> {
    if (!existsSync(binary))
      throw new Error(`${binary} is missing: run \`make otelcol\` (builds the test Collector from test/otelcol)`);
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-otelcol-'));
    const out = path.join(dir, 'out.json');
    const config = path.join(dir, 'config.yaml');
    const pipeline = '{receivers: [otlp], exporters: [file]}';
    writeFileSync(
      config,
      `receivers: {otlp: {protocols: {${protocol}: {endpoint: "127.0.0.1:${port}"}}}}
exporters: {file: {path: ${JSON.stringify(out)}, flush_interval: 100ms}}
service:
  telemetry: {metrics: {level: none}}
  pipelines: {traces: ${pipeline}, logs: ${pipeline}}
`,
    );
    const proc = spawn(binary, ['--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const deadline = Date.now() + 30_000;
    while (!(await accepts(port))) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`the test Collector did not start: ${stderr.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return new Collector(`${protocol}://127.0.0.1:${port}`, proc, dir, () =>
      existsSync(out) ? readFileSync(out, 'utf8') : '',
    );
  }

  spans(): OtlpSpan[] {
    return this.lines().flatMap((l) =>
      ((l.resourceSpans ?? []) as { scopeSpans?: { spans?: OtlpSpan[] }[] }[]).flatMap((r) =>
        (r.scopeSpans ?? []).flatMap((s) => s.spans ?? []),
      ),
    );
  }

  logRecords(): OtlpLogRecord[] {
    return this.lines().flatMap((l) =>
      ((l.resourceLogs ?? []) as { scopeLogs?: { logRecords?: OtlpLogRecord[] }[] }[]).flatMap((r) =>
        (r.scopeLogs ?? []).flatMap((s) => s.logRecords ?? []),
      ),
    );
  }

  /** Waits (polling the file; the proxy batches for about a second) until `pick` finds what it looks for. */
  async waitFor<T>(pick: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = pick();
      if (got !== undefined) return got;
      if (Date.now() > deadline) throw new Error(`the Collector did not receive ${what}; it has: ${this.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      this.proc.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private lines(): Record<string, unknown>[] {
    // The exporter may be mid-write: only lines it finished (newline-terminated) are read.
    return this.output()
      .split('\n')
      .slice(0, -1)
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}
