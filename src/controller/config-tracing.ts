// Traces a configuration change from the controller to every proxy that applied it (`--otlp-traces-url`):
// a `translate` span per translation pass; under it a `publish <gateway>` span per gateway whose snapshot
// changed, open until each proxy subscribed to that gateway has ACKed the new snapshot (or `waitMs` passed);
// under that an `apply <pod>` span per proxy, from the publish to its ACK. One trace shows a change
// reaching every proxy, and how long each took.
import { ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { ControllerSource } from './snapshot-source.js';

export interface ConfigTracerOptions {
  /** OTLP/HTTP (protobuf) traces endpoint; `/v1/traces` is added when the URL has no path. */
  url: string;
  /** How long a publish waits for its proxies' ACKs before its span ends (default 30 s). */
  waitMs?: number;
}

export interface ConfigTracer {
  /** Runs one translation pass (sync or async) inside a `translate` span; publishes during it become its children. */
  pass<T>(attributes: Attributes, fn: () => T): T;
  /** The source that proxies are served from, with every changing publish traced. */
  source(inner: ControllerSource): ControllerSource;
  /** Which proxies (pods) are subscribed to a gateway now: set once the xDS server runs. */
  connected(proxies: (gateway: string) => string[]): void;
  /** The xDS server's onAck. */
  acked(gateway: string, pod: string, version: string): void;
  close(): Promise<void>;
}

interface Pending {
  span: Span;
  startedAt: number;
  /** What each proxy held when the publish happened: an ACK of the same version is not this change. */
  before: Map<string, string>;
  applied: Set<string>;
  timer?: NodeJS.Timeout;
}

export function createConfigTracer(o: ConfigTracerOptions): ConfigTracer {
  const url = new URL(o.url).pathname === '/' ? new URL('/v1/traces', o.url).toString() : o.url;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'gw-controller' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 1000 })],
  });
  const tracer = provider.getTracer('gw-controller');
  return new Tracing(tracer, o.waitMs ?? 30_000, () => provider.shutdown());
}

class Tracing implements ConfigTracer {
  private current: Span | undefined;
  private proxies: (gateway: string) => string[] = () => [];
  private readonly pending = new Map<string, Pending>();
  /** The version each proxy (`gateway pod`) last ACKed. */
  private readonly held = new Map<string, string>();

  constructor(
    private readonly tracer: Tracer,
    private readonly waitMs: number,
    private readonly shutdown: () => Promise<void>,
  ) {}

  pass<T>(attributes: Attributes, fn: () => T): T {
    const span = this.tracer.startSpan('translate', { attributes });
    this.current = span;
    const end = (err?: unknown): void => {
      if (err !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      if (this.current === span) this.current = undefined;
      span.end();
    };
    let result: T;
    try {
      result = fn();
    } catch (err) {
      end(err);
      throw err;
    }
    if (!(result instanceof Promise)) {
      end();
      return result;
    }
    return result.then(
      (v: unknown) => {
        end();
        return v;
      },
      (err: unknown) => {
        end(err);
        throw err;
      },
    ) as T;
  }

  source(inner: ControllerSource): ControllerSource {
    return {
      ...inner,
      publish: (gateway, snapshot) => {
        const before = inner.get(gateway);
        inner.publish(gateway, snapshot);
        const after = inner.get(gateway);
        if (after && after !== before) this.published(gateway, after.size);
      },
    };
  }

  connected(proxies: (gateway: string) => string[]): void {
    this.proxies = proxies;
  }

  acked(gateway: string, pod: string, version: string): void {
    const key = `${gateway} ${pod}`;
    this.held.set(key, version);
    const p = this.pending.get(gateway);
    if (!p || p.applied.has(pod) || p.before.get(pod) === version) return;
    p.applied.add(pod);
    const parent = trace.setSpan(ROOT_CONTEXT, p.span);
    const attributes = { 'gw.gateway': gateway, 'gw.pod': pod, 'gw.xds.version': version };
    this.tracer.startSpan(`apply ${pod}`, { startTime: p.startedAt, attributes }, parent).end();
    if (this.proxies(gateway).every((x) => p.applied.has(x))) this.finish(gateway, p);
  }

  async close(): Promise<void> {
    for (const [gateway, p] of this.pending) this.finish(gateway, p);
    await this.shutdown();
  }

  private published(gateway: string, resources: number): void {
    const previous = this.pending.get(gateway);
    if (previous) {
      previous.span.setAttribute('gw.superseded', true);
      this.finish(gateway, previous);
    }
    const parent = this.current ? trace.setSpan(ROOT_CONTEXT, this.current) : ROOT_CONTEXT;
    const attributes = { 'gw.gateway': gateway, 'gw.resources': resources };
    const span = this.tracer.startSpan(`publish ${gateway}`, { attributes }, parent);
    const before = new Map<string, string>();
    for (const pod of this.proxies(gateway)) before.set(pod, this.held.get(`${gateway} ${pod}`) ?? '');
    const p = { span, startedAt: Date.now(), before, applied: new Set<string>() } as Pending;
    // No proxy to wait for: the publish is done (a proxy connecting later gets the whole snapshot).
    if (before.size === 0) return this.finish(gateway, p);
    p.timer = setTimeout(() => this.finish(gateway, p), this.waitMs).unref();
    this.pending.set(gateway, p);
  }

  private finish(gateway: string, p: Pending): void {
    clearTimeout(p.timer);
    if (this.pending.get(gateway) === p) this.pending.delete(gateway);
    const waiting = this.proxies(gateway).filter((x) => !p.applied.has(x));
    p.span.setAttributes({ 'gw.proxies.applied': p.applied.size, 'gw.proxies.waiting': waiting.length });
    p.span.end();
  }
}
