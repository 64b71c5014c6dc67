// GwPolicy `strategy.merge: Replace` on a real request: a route policy with Replace stands whole, so the
// Gateway policy's fields it does not set stop applying; with the default Merge they still apply.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { log, rawRequest, startUpstream, type Upstream } from './http-forward-harness.js';
import { translatedIr } from './translated-ir.js';
import { trafficManifests } from './traffic-manifests.js';

const gatewayPolicy = `apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: platform, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  traffic: {headerModifiers: {response: {add: [{name: X-Platform, value: "yes"}]}}}
`;

describe('strategy.merge on forwarded routes', () => {
  let upstream: Upstream;
  let runtime: ProxyRuntime;
  let base: string;

  beforeAll(async () => {
    upstream = await startUpstream((_req, res) => {
      res.writeHead(200).end('ok');
    });
    runtime = new ProxyRuntime({ log });
    await runtime.apply(
      translatedIr(
        trafficManifests(
          upstream.port,
          [
            { name: 'merged', traffic: '{timeouts: {request: 5s}}' },
            // The template writes `traffic: <this>` as the last line of the spec; the strategy rides along.
            { name: 'replaced', traffic: '{timeouts: {request: 5s}}\n  strategy: {merge: Replace}' },
          ],
          gatewayPolicy,
        ),
      ),
    );
    base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
  });

  afterAll(async () => {
    await runtime?.close();
    await upstream?.close();
  });

  it('merges the Gateway policy fields the route policy does not set (Merge, the default)', async () => {
    expect((await rawRequest(`${base}/merged/x`)).headers['x-platform']).toBe('yes');
  });

  it('drops the Gateway policy fields under a route policy with Replace', async () => {
    const res = await rawRequest(`${base}/replaced/x`);
    expect(res.status).toBe(200);
    expect(res.headers['x-platform']).toBeUndefined();
  });
});
