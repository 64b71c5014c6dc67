// The 503 policy_not_enforced of a route comes from the IR's Route.refusals (decided by the translator),
// never from the JSON text in Route.effective. Hand-built IR, a real runtime and a real upstream.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { RouteInput } from '../../src/ir/types.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';

describe('route refusals', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });

  const route = (name: string, extra: Partial<RouteInput>): RouteInput => ({
    name,
    listeners: ['l'],
    matches: [{ prefix: `/${name}` }],
    backends: [{ backend: 'up', weight: 1 }],
    ...extra,
  });

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => {
      res.writeHead(200).end('backend');
    });
    runtime = new ProxyRuntime({ log: pino({ level: 'info' }, sink) });
    await runtime.apply(
      normalizeSnapshot({
        version: '1',
        resources: [
          { bind: { name: 'b', port: 0, address: '127.0.0.1' } },
          { listener: { name: 'l', bind: 'b', protocol: 'HTTP' } },
          { backend: { name: 'up', static: { host: '127.0.0.1', port: upstream.port } } },
          {
            route: route('secure', {
              refusals: [
                {
                  field: 'spec.traffic.extProc',
                  source: 'GwPolicy default/p',
                  reason: 'external processing is not supported',
                  security: true,
                },
              ],
            }),
          },
          {
            route: route('cosmetic', {
              refusals: [
                {
                  field: 'spec.traffic.transformation',
                  source: 'GwPolicy default/p',
                  reason: 'not supported',
                  security: false,
                },
              ],
            }),
          },
          // The old inference read this text; the proxy must not.
          {
            route: route('text', {
              effective: { fields: { 'traffic.extProc': '{"url":"grpc://x:1"}' }, provenance: {} },
            }),
          },
        ],
      }),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('answers every request on a route with a security refusal with 503 policy_not_enforced, naming the field', async () => {
    for (const method of ['GET', 'POST']) {
      const res = await rawRequest(`${base}/secure/x`, { method });
      expect(res.status).toBe(503);
      const body = JSON.parse(res.body) as { error: string; error_description: string };
      expect(body.error).toBe('policy_not_enforced');
      expect(body.error_description).toContain('spec.traffic.extProc');
    }
  });

  it('logs the refused route once', () => {
    expect(lines.filter((l) => l.route === 'secure' && l.level === 50)).toHaveLength(1);
  });

  it('serves a route whose refusals do not concern security', async () => {
    expect((await rawRequest(`${base}/cosmetic/x`)).status).toBe(200);
  });

  it('serves a route whose only trace of a setting is JSON text in Route.effective', async () => {
    expect((await rawRequest(`${base}/text/x`)).status).toBe(200);
  });
});
