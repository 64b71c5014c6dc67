// GwPolicy `frontend.accessLog` through the proxy's own log: real requests through a runtime serving
// translated manifests, the lines read back from pino's stream. Each case would fail if its field were
// skipped: no line at all, a line the filter should have dropped, a missing added field or a kept removed one.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

type Line = Record<string, unknown>;

const policy = (accessLog: string): string => `
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: logs, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend: {accessLog: ${accessLog}}
`;

describe('frontend.accessLog', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime | undefined;
  let base: string;
  let lines: Line[] = [];

  const serve = async (accessLog: string | undefined): Promise<void> => {
    await runtime?.close();
    lines = [];
    const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
    runtime = new ProxyRuntime({ log });
    const extra = accessLog === undefined ? '' : policy(accessLog);
    await runtime.apply(translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], extra)));
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  };
  /** The access line of one request: written when its response closes, so wait for it. */
  const request = async (path: string, headers: Record<string, string> = {}): Promise<Line | undefined> => {
    const res = await fetch(`${base}${path}`, { headers });
    await res.text();
    await new Promise((r) => setImmediate(r));
    return lines.filter((l) => l.msg === 'access').find((l) => l.path === path || l['url.path'] === path);
  };

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      res.writeHead(req.url?.includes('missing') ? 404 : 200, { 'content-type': 'text/plain' }).end('ok');
    });
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('writes no access line when the listener sets no accessLog', async () => {
    await serve(undefined);
    expect(await request('/app/a')).toBeUndefined();
  });

  it('writes one line per request with method, path, status, duration, listener and route', async () => {
    await serve('{}');
    const line = await request('/app/a');
    expect(line).toMatchObject({
      method: 'GET',
      path: '/app/a',
      status: 200,
      listener: 'default/web/http',
      route: 'HTTPRoute/default/app/0',
      client: '127.0.0.1',
    });
    expect(typeof line?.duration_ms).toBe('number');
    expect(lines.filter((l) => l.msg === 'access')).toHaveLength(1);
  });

  it('names the fields after the OpenTelemetry conventions with the Otel preset', async () => {
    await serve('{preset: Otel}');
    expect(await request('/app/a')).toMatchObject({
      'http.request.method': 'GET',
      'url.path': '/app/a',
      'http.response.status_code': 200,
    });
  });

  it('writes a line only when the filter holds', async () => {
    await serve("{filter: 'response.code >= 400'}");
    expect(await request('/app/fine')).toBeUndefined();
    expect(await request('/app/missing')).toMatchObject({ status: 404 });
  });

  it('adds fields from CEL expressions and removes the named ones', async () => {
    await serve(
      `{attributes: {add: [{name: team, expression: 'request.headers["x-team"]'}, {name: slow, expression: 'response.durationMs > 60000.0'}], remove: [client, listener]}}`,
    );
    const line = await request('/app/a', { 'x-team': 'blue' });
    expect(line).toMatchObject({ team: 'blue', slow: false, method: 'GET' });
    expect(line).not.toHaveProperty('client');
    expect(line).not.toHaveProperty('listener');
  });

  it('never hands a credential header to an added field', async () => {
    await serve(`{attributes: {add: [{name: auth, expression: 'request.headers["authorization"]'}]}}`);
    const line = await request('/app/a', { authorization: 'Bearer sk-secret-token-0123' });
    expect(line).toMatchObject({ method: 'GET' });
    expect(JSON.stringify(line)).not.toContain('sk-secret-token');
  });
});

describe('frontend telemetry the proxy cannot act on as written', () => {
  it('refuses a filter that does not compile and an OTLP gRPC URL with a path, naming the fields', () => {
    const ir = translatedIr(
      trafficManifests(
        1,
        [{ name: 'app', traffic: '{}' }],
        policy("{filter: 'nope.code == 1', otlp: {url: 'grpc://collector:4317'}}").replace(
          'frontend: {',
          'frontend: {tracing: {url: "grpc://collector:4317/v1/traces"}, ',
        ),
      ),
    );
    const listener = ir.resources.find((r) => r.listener)?.listener;
    expect(listener?.refusals.map((r) => r.field).sort()).toEqual([
      'spec.frontend.accessLog.filter',
      'spec.frontend.tracing',
    ]);
    expect(listener?.refusals.find((r) => r.field === 'spec.frontend.tracing')?.reason).toContain(
      'grpc://host:port or grpcs://host:port, without a path',
    );
    expect(listener?.telemetry?.accessLog?.filter).toBe('');
    // A gRPC URL without a path is an OTLP/gRPC endpoint, kept as written.
    expect(listener?.telemetry?.accessLog?.otlpLogsUrl).toBe('grpc://collector:4317');
    expect(listener?.telemetry?.tracing).toBeNull();
  });
});
