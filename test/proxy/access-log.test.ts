// GwPolicy `frontend.accessLog`, translated from manifests and served by a real runtime: one line per request
// through the proxy's logger, `filter` deciding which, `attributes` adding (CEL) and removing fields, and the
// Otel preset's field names. Without the policy no line is written, so every check fails if it is skipped.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

const policy = (accessLog: string): string => `
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: log, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend:
    accessLog: ${accessLog}
`;

type Line = Record<string, unknown>;

describe('frontend.accessLog', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime | undefined;
  let port: number;
  let lines: Line[] = [];
  const serve = async (extra: string): Promise<void> => {
    await runtime?.close();
    lines = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
        done();
      },
    });
    runtime = new ProxyRuntime({ log: pino({ level: 'info' }, sink) });
    await runtime.apply(translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], extra)));
    port = Object.values(runtime.boundPorts())[0] as number;
  };
  const get = async (path: string, headers: Record<string, string> = {}): Promise<number> => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
    await res.text();
    return res.status;
  };
  const access = (): Line[] => lines.filter((l) => l.log === 'access');
  /** The lines once `n` are there: a line is written when the response closes, just after the client has it. */
  const written = async (n: number): Promise<Line[]> => {
    await expect.poll(() => access().length).toBe(n);
    return access();
  };

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => void res.writeHead(200).end('ok'));
  });
  afterAll(async () => {
    await runtime?.close();
    await upstream.close();
  });

  it('writes one line per request with the listener, route, request and answer', async () => {
    await serve(policy('{}'));
    expect(await get('/app/x?q=1', { 'user-agent': 'gw-test' })).toBe(200);
    expect(await get('/nowhere')).toBe(404);
    const [first, second] = await written(2);
    expect(first).toMatchObject({
      listener: 'default/web/http',
      route: 'HTTPRoute/default/app/0',
      method: 'GET',
      path: '/app/x',
      status: 200,
      source: '127.0.0.1',
      msg: 'access',
    });
    expect(typeof first?.duration_ms).toBe('number');
    expect(second).toMatchObject({ path: '/nowhere', status: 404, error: 'not_found' });
  });

  it('writes no line without the policy', async () => {
    await serve('');
    await get('/app/x');
    // Absence: give a line the time it would take to appear.
    await new Promise((r) => setTimeout(r, 200));
    expect(access()).toEqual([]);
  });

  it('filter: only requests the expression holds for', async () => {
    await serve(policy(`{filter: 'response.code >= 400'}`));
    await get('/app/x');
    await get('/nowhere');
    // The first request's line would have been written before the second request was sent.
    expect((await written(1)).map((l) => l.status)).toEqual([404]);
  });

  it('attributes: adds evaluated fields, leaves out a failing one, removes named ones', async () => {
    await serve(
      policy(
        `{attributes: {add: [{name: team, expression: 'request.headers["x-team"]'}, {name: user, expression: 'jwt.sub'}], remove: [host, source]}}`,
      ),
    );
    await get('/app/x', { 'x-team': 'blue' });
    const [line] = await written(1);
    expect(line).toMatchObject({ team: 'blue', path: '/app/x' });
    expect(line).not.toHaveProperty('user');
    expect(line).not.toHaveProperty('host');
    expect(line).not.toHaveProperty('source');
  });

  it('preset Otel: OpenTelemetry semantic-convention names', async () => {
    await serve(policy('{preset: Otel}'));
    await get('/app/x', { 'user-agent': 'gw-test' });
    expect((await written(1))[0]).toMatchObject({
      'http.request.method': 'GET',
      'url.path': '/app/x',
      'http.response.status_code': 200,
      'http.route': 'HTTPRoute/default/app/0',
      'user_agent.original': 'gw-test',
      'client.address': '127.0.0.1',
    });
  });
});
