// A global rate limit whose descriptors name the LLM request body is checked by the LLM forwarder once the body is
// read. A client that goes away while that check waits must not be sent on to the provider when the check
// answers: it costs the provider tokens nobody reads. The rate-limit service here is a grpc-js stand-in on the
// real protocol (proto/envoy/service/ratelimit) that holds its first answer until the test lets it go, so the
// client can leave at a known point; envoyproxy/ratelimit itself is tested in llm-token-limit-global.test.ts.
import * as grpc from '@grpc/grpc-js';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcService } from '../../../src/proxy/ext/grpc-clients.js';
import { waitFor } from '../../system/harness.js';
import { GATEWAY, aiBackend, aiRoute, chat, useFakeAndProxy } from './llm-harness.js';

/** The stand-in: answers OK, but holds the answers to the calls that come while `holding`. */
const limits = { calls: 0, holding: true, held: [] as (() => void)[], port: 0 };
let server: grpc.Server;
beforeAll(async () => {
  server = new grpc.Server();
  server.addService(
    grpcService('envoy/service/ratelimit/v3/rls.proto', 'envoy.service.ratelimit.v3.RateLimitService'),
    {
      ShouldRateLimit: (_call: unknown, answer: grpc.sendUnaryData<object>) => {
        limits.calls++;
        const ok = () => answer(null, { overallCode: 1 });
        if (limits.holding) limits.held.push(ok);
        else ok();
      },
    },
  );
  limits.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
});
afterAll(() => server?.forceShutdown());

const manifests = (port: number): string => `${GATEWAY}
${aiBackend('openai', `openai: {}, host: 127.0.0.1, port: ${port}`)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: per-model, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: limited}]
  traffic:
    rateLimit:
      global:
        url: grpc://127.0.0.1:${limits.port}
        domain: llm
        timeout: 10s
        descriptors: [{entries: [{name: model, expression: llmRequest.model}]}]
${aiRoute('limited', '/limited', 'openai')}`;

describe('the deferred LLM rate-limit check', () => {
  const t = useFakeAndProxy('openai', manifests);
  const requestsSeen = async (): Promise<number> => {
    const metric = await t.proxy.runtime.metrics.registry.getSingleMetric('gw_http_requests_total')?.get();
    return (metric?.values ?? []).reduce((n, v) => n + v.value, 0);
  };

  it('sends nothing to the provider for a client that went away while the check waited', async () => {
    const before = await requestsSeen();
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'gone' }] });
    const port = new URL(t.proxy.base).port;
    const gone = request({
      host: '127.0.0.1',
      port,
      path: '/limited/v1/chat/completions',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    gone.on('error', () => {});
    gone.end(body);
    await waitFor('the check of the request body', () => limits.calls === 1);
    gone.destroy();
    // The proxy counts a request when its response closes: from then on the forwarder has seen the client go.
    await waitFor('the proxy to see the client go', async () => (await requestsSeen()) > before);
    limits.holding = false;
    for (const ok of limits.held.splice(0)) ok();

    const next = await chat(`${t.proxy.base}/limited/v1/chat/completions`, {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'stayed' }],
    });
    expect(next.status).toBe(200);
    expect(limits.calls).toBe(2);
    expect(t.fake.received.map((r) => JSON.stringify(r.body))).toEqual([expect.stringContaining('stayed')]);
  });
});
