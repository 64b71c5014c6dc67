// GwPolicy `frontend.networkAuthorization`, translated from manifests and served by a real runtime: requests
// come from two loopback source addresses (127.0.0.1 and 127.0.0.2, both local on Linux), so a rule over
// `source.address` must let one in and close the other's connection before any HTTP byte. Without the field
// both would be served.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

const policy = (action: string, expressions: string[]): string => `
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: net, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend:
    networkAuthorization:
      action: ${action}
      policy: {matchExpressions: ${JSON.stringify(expressions)}}
`;

/** GET /app from `from`: the status, or the socket error code when the connection was closed. */
function get(port: number, from: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/app', localAddress: from, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

describe('frontend.networkAuthorization', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime | undefined;
  let port: number;
  const serve = async (extra: string): Promise<void> => {
    await runtime?.close();
    runtime = new ProxyRuntime({ log });
    await runtime.apply(translatedIr(trafficManifests(upstream.port, [{ name: 'app', traffic: '{}' }], extra)));
    port = Object.values(runtime.boundPorts())[0] as number;
  };
  const denied = async (): Promise<number> =>
    (await runtime?.metrics.registry.getSingleMetric('gw_listener_connections_denied_total')?.get())?.values[0]
      ?.value ?? 0;

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => void res.writeHead(200).end('ok'));
  });
  afterAll(async () => {
    await runtime?.close();
    await upstream.close();
  });

  it('Allow: only sources a rule matches are served; others are closed and counted', async () => {
    await serve(policy('Allow', ['source.address == "127.0.0.2"']));
    expect(await get(port, '127.0.0.2')).toBe(200);
    expect(await get(port, '127.0.0.1')).toBe('ECONNRESET');
    expect(await denied()).toBe(1);
  });

  it('Deny: a matching source is closed, the rest served', async () => {
    await serve(policy('Deny', ['source.address == "127.0.0.2"']));
    expect(await get(port, '127.0.0.1')).toBe(200);
    expect(await get(port, '127.0.0.2')).toBe('ECONNRESET');
  });

  it('Require: every expression must hold, destination attributes included', async () => {
    await serve(policy('Require', ['destination.port > 0', 'source.address.startsWith("127.0.0.")']));
    expect(await get(port, '127.0.0.1')).toBe(200);
    await serve(policy('Require', [`destination.port == 1`]));
    expect(await get(port, '127.0.0.1')).toBe('ECONNRESET');
  });

  it('without the policy every source is served', async () => {
    await serve('');
    expect(await get(port, '127.0.0.1')).toBe(200);
    expect(await get(port, '127.0.0.2')).toBe(200);
  });
});
