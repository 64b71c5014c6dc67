// GwPolicy `frontend.tracing` and `frontend.accessLog.otlp` against a real OpenTelemetry Collector (built from
// Go modules by `make otelcol`): real requests through a runtime serving translated manifests, then the spans
// and log records the Collector wrote. Without tracing no span arrives; without `otlp` no log record does.
// An MCP call is traced, logged and counted alike for a 2025 client (a session) and a 2026-07-28 client (stateless).
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp-http-server.js';
import { generations } from './generations.js';
import { startUpstream, type Upstream } from './http-forward-harness.js';
import { attrs, Collector, type OtlpSpan } from './otel-collector.js';
import { translatedIr } from './translated-ir.js';
import { mcpBackendManifest, trafficManifests } from './traffic-manifests.js';

const SERVER = 2;
const CLIENT = 3;
const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
const clientSpan = '00f067aa0ba902b7';

/** A GwPolicy sending the Gateway's spans and access-log records to `url`. */
const telemetryPolicy = (url: string): string => `
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: telemetry, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend:
    tracing: {url: "${url}"}
    accessLog: {preset: Otel, otlp: {url: "${url}"}}
`;

describe('tracing and OTLP access logs, received by an OpenTelemetry Collector', () => {
  let collector: Collector;
  let upstream: Upstream;
  let fixture: HttpFixture;
  let runtime: ProxyRuntime;
  let base: string;
  const seen: (string | undefined)[] = [];
  let checker: Upstream;
  const checked: (string | undefined)[] = [];

  beforeAll(async () => {
    collector = await Collector.start();
    upstream = await startUpstream((req, res) => {
      seen.push(req.headers.traceparent as string | undefined);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    fixture = await startHttpFixture({ id: 'otel' });
    checker = await startUpstream((req, res) => {
      checked.push(req.headers.traceparent as string | undefined);
      res.writeHead(200).end();
    });
    const policy = telemetryPolicy(collector.url);
    const manifests = trafficManifests(
      upstream.port,
      [
        { name: 'app', traffic: '{}' },
        { name: 'tools', backend: 'mcp', traffic: '{}' },
        {
          name: 'guarded',
          // `openssl passwd -apr1 -salt abcdefgh secret`
          traffic: `{basicAuthentication: {users: ["alice:$apr1$abcdefgh$h9FWgUz3n9YxylKLlR5SQ/"]}, extAuth: {url: "http://127.0.0.1:${checker.port}"}}`,
        },
      ],
      `${mcpBackendManifest('mcp', Number(new URL(fixture.url).port))}---\n${policy}`,
    );
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
    await runtime.apply(translatedIr(manifests));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await fixture?.close();
    await upstream?.close();
    await checker?.close();
    await collector?.stop();
  });

  const spansOf = (traceId: string): OtlpSpan[] => collector.spans().filter((s) => s.traceId === traceId);

  it("continues the client's trace: a server span, a client span for the forward, and its traceparent upstream", async () => {
    const res = await fetch(`${base}/app/x`, { headers: { traceparent: `00-${clientTrace}-${clientSpan}-01` } });
    expect(res.status).toBe(200);
    const [server, forward] = await collector.waitFor(() => {
      const spans = spansOf(clientTrace);
      const s = spans.find((x) => x.kind === SERVER);
      const f = spans.find((x) => x.kind === CLIENT && x.parentSpanId === s?.spanId);
      return s && f ? [s, f] : undefined;
    }, 'the server and forward spans');
    expect(server.parentSpanId).toBe(clientSpan);
    expect(server.name).toBe('GET HTTPRoute/default/app/0');
    expect(attrs(server.attributes)).toMatchObject({
      'http.request.method': 'GET',
      'url.path': '/app/x',
      'http.response.status_code': 200,
      'gw.route': 'HTTPRoute/default/app/0',
    });
    expect(seen.at(-1)).toBe(`00-${clientTrace}-${forward.spanId}-01`);
  });

  const mcpCounts = async (): Promise<{ calls: number; added: number }> => {
    const text = await runtime.metrics.registry.metrics();
    const count = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
    return {
      calls: count(/^gw_mcp_requests_total\{method="tools\/call"\} (\d+)$/m),
      added: count(/^gw_mcp_tool_calls_total\{target="[^"]+",tool="add",outcome="ok"\} (\d+)$/m),
    };
  };
  // The MCP attributes of each generation's call span and access-log record, compared once both ran.
  const mcpSeen = new Map<string, { span: Record<string, unknown>; record: Record<string, unknown> }>();
  // The session id is the one difference there is to be: a 2026 client has no session.
  const mcpOnly = (a: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(a).filter(([k]) => (k.startsWith('mcp.') || k.startsWith('gen_ai.')) && k !== 'mcp.session.id'),
    );

  it.each(generations)(
    'makes an MCP call a child span with the MCP and GenAI attributes ($generation)',
    async ({ generation, connect, session }) => {
      const trace =
        generation === '2026-07-28' ? 'c6f92f3577b34da6a3ce929d0e0e4736' : 'c5f92f3577b34da6a3ce929d0e0e4736';
      const before = await mcpCounts();
      const { client } = await connect(`${base}/tools`, { traceparent: `00-${trace}-${clientSpan}-01` });
      try {
        await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      } finally {
        await client.close();
      }
      // The metrics count the call once, the same way: by method, and by target, tool and outcome.
      const after = await mcpCounts();
      expect([after.calls - before.calls, after.added - before.added]).toEqual([1, 1]);
      const call = await collector.waitFor(
        () => collector.spans().find((s) => s.name === 'tools/call add' && s.traceId === trace),
        'the tools/call span',
      );
      expect(call.kind).toBe(CLIENT);
      expect(attrs(call.attributes)).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'add' });
      // The MCP target got the call span's context.
      expect(fixture.headers.map((h) => h.traceparent)).toContain(`00-${call.traceId}-${call.spanId}-01`);
      const parent = collector.spans().find((s) => s.spanId === call.parentSpanId);
      expect(parent?.kind).toBe(SERVER);
      expect(attrs(parent?.attributes)['url.path']).toBe('/tools');
      const record = await collector.waitFor(
        () =>
          collector.logRecords().find((r) => r.traceId === trace && attrs(r.attributes)['gen_ai.tool.name'] === 'add'),
        'the tools/call access-log record',
      );
      const fields = attrs(record.attributes);
      expect(fields['mcp.method.name']).toBe('tools/call');
      // A digest of the session id, never the id itself (it resumes the session); a 2026 client has none.
      if (session) expect(fields['mcp.session.id']).toMatch(/^[0-9a-f]{16}$/);
      else expect(fields).not.toHaveProperty('mcp.session.id');
      mcpSeen.set(generation, { span: mcpOnly(attrs(call.attributes)), record: mcpOnly(fields) });
    },
  );

  it('gives a 2025 and a 2026-07-28 call the same MCP attributes on span and access-log record', () => {
    const [legacy, modern] = generations.map((g) => mcpSeen.get(g.generation));
    expect(legacy).toBeDefined();
    expect(modern).toEqual(legacy);
  });

  it('traces authentication and external authorization, and the authorization service gets the check span as parent', async () => {
    const trace = 'bbf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${base}/guarded/x`, {
      headers: {
        traceparent: `00-${trace}-${clientSpan}-01`,
        authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}`,
      },
    });
    expect(`${res.status} ${await res.text()}`).toBe('200 ok');
    const [auth, check] = await collector.waitFor(() => {
      const spans = spansOf(trace);
      const a = spans.find((s) => s.name === 'authenticate');
      const c = spans.find((s) => s.name === 'ext_authz');
      return a && c ? [a, c] : undefined;
    }, 'the authenticate and ext_authz spans');
    const server = spansOf(trace).find((s) => s.kind === SERVER);
    expect(auth.parentSpanId).toBe(server?.spanId);
    expect(attrs(auth.attributes)['gw.authenticated']).toBe(true);
    expect(check.kind).toBe(CLIENT);
    expect(check.parentSpanId).toBe(server?.spanId);
    expect(attrs(check.attributes)['gw.ext_authz.allowed']).toBe(true);
    expect(checked.at(-1)).toBe(`00-${trace}-${check.spanId}-01`);
  });

  it("exports each access-log line as an OTLP log record in the request's trace", async () => {
    const trace = 'aaf92f3577b34da6a3ce929d0e0e4736';
    await fetch(`${base}/app/logged`, { headers: { traceparent: `00-${trace}-${clientSpan}-01` } });
    const record = await collector.waitFor(
      () => collector.logRecords().find((r) => attrs(r.attributes)['url.path'] === '/app/logged'),
      'the access-log record',
    );
    expect(record.traceId).toBe(trace);
    expect(record.body?.stringValue).toBe('access');
    expect(attrs(record.attributes)).toMatchObject({
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'gw.route': 'HTTPRoute/default/app/0',
      trace_id: trace,
    });
  });
});

describe('tracing and OTLP access logs over gRPC, received by a Collector with only its gRPC receiver', () => {
  let collector: Collector;
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    collector = await Collector.start('grpc');
    upstream = await startUpstream((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    const policy = telemetryPolicy(collector.url);
    const ir = translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], policy));
    const listener = ir.resources.find((r) => r.listener)?.listener;
    expect(listener?.refusals).toEqual([]);
    expect(listener?.telemetry?.tracing?.otlpTracesUrl).toBe(collector.url);
    runtime = new ProxyRuntime({ log: pino({ level: 'silent' }), security: createRouteSecurity() });
    await runtime.apply(ir);
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
    await collector?.stop();
  });

  it('exports the server span and the access-log record of a request through the Export calls of OTLP/gRPC', async () => {
    const trace = 'ccf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${base}/app/over-grpc`, { headers: { traceparent: `00-${trace}-${clientSpan}-01` } });
    expect(res.status).toBe(200);
    const server = await collector.waitFor(
      () => collector.spans().find((s) => s.traceId === trace && s.kind === SERVER),
      'the server span over gRPC',
    );
    expect(server.parentSpanId).toBe(clientSpan);
    expect(attrs(server.attributes)).toMatchObject({ 'url.path': '/app/over-grpc', 'http.response.status_code': 200 });
    const record = await collector.waitFor(
      () => collector.logRecords().find((r) => attrs(r.attributes)['url.path'] === '/app/over-grpc'),
      'the access-log record over gRPC',
    );
    expect(record.traceId).toBe(trace);
    expect(record.body?.stringValue).toBe('access');
  });
});
