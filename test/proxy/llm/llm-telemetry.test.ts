// LLM calls in GwPolicy `frontend.tracing` and `frontend.accessLog`: a chat completion through the real
// translator and runtime to the loopback OpenAI fake, then the GenAI child span the OpenTelemetry Collector
// received and the access-log line with provider, model and tokens.
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { attrs, Collector } from '../otel-collector.js';
import { OPENAI_USAGE } from './fake-vendors.js';
import { GATEWAY, aiBackend, aiRoute, chat, secret, useFakeAndProxy } from './llm-harness.js';
import { webhookBackend } from '../guard/guard-harness.js';
import { startReferenceWebhook, type ReferenceWebhook } from '../guard/reference-webhook.js';

const CLIENT = 3;
let collector: Collector;
let hook: ReferenceWebhook;
beforeAll(async () => {
  collector = await Collector.start();
  hook = await startReferenceWebhook();
});
afterAll(async () => {
  await collector?.stop();
  await hook?.close();
});

const manifests = (
  port: number,
): string => `${GATEWAY}${secret('openai-key', { Authorization: 'sk-test-telemetry-0123' })}
${aiBackend('openai', `openai: {}, host: 127.0.0.1, port: ${port}`)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: openai-auth, namespace: default}
spec:
  targetRefs: [{group: gw.dev, kind: GwBackend, name: openai}]
  backend:
    auth: {secretRef: {name: openai-key}}
    ai:
      promptGuard:
        request:
        - webhook: {backendRef: {group: gw.dev, kind: GwBackend, name: webhook, port: ${hook.port}}}
${webhookBackend(hook.port)}---
apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: telemetry, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  frontend:
    tracing: {url: "${collector.url}"}
    accessLog: {preset: Otel}
${aiRoute('openai', '/openai', 'openai')}`;

describe('LLM telemetry', () => {
  const t = useFakeAndProxy('openai', manifests);

  it('traces a chat completion as a GenAI client span and logs provider, model and tokens', async () => {
    const res = await chat(`${t.proxy.base}/openai/v1/chat/completions`, {
      model: 'gpt-telemetry',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(res.status).toBe(200);
    const span = await collector.waitFor(
      () => collector.spans().find((s) => s.name === 'chat gpt-telemetry'),
      'the chat span',
    );
    expect(span.kind).toBe(CLIENT);
    expect(attrs(span.attributes)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-telemetry',
      'gen_ai.usage.input_tokens': OPENAI_USAGE.prompt_tokens,
      'gen_ai.usage.output_tokens': OPENAI_USAGE.completion_tokens,
    });
    const line = t.proxy.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'access');
    expect(line).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-telemetry',
      'gen_ai.usage.input_tokens': OPENAI_USAGE.prompt_tokens,
      'gen_ai.usage.output_tokens': OPENAI_USAGE.completion_tokens,
      trace_id: span.traceId,
    });
    // The provider got the chat span's context; the guard webhook its own span's, a sibling under the server span.
    expect(t.fake.received.at(-1)?.headers.traceparent).toBe(`00-${span.traceId}-${span.spanId}-01`);
    const guard = await collector.waitFor(
      () => collector.spans().find((s) => s.traceId === span.traceId && s.name.startsWith('guard webhook')),
      'the guard webhook span',
    );
    expect(guard.kind).toBe(CLIENT);
    expect(guard.parentSpanId).toBe(span.parentSpanId);
    expect(attrs(guard.attributes)).toMatchObject({ 'gw.guard.phase': 'request', 'gw.guard.verdict': 'allow' });
    const call = hook.calls.find((c) => c.path === '/request');
    expect(call?.headers.traceparent).toBe(`00-${span.traceId}-${guard.spanId}-01`);
  });
});
