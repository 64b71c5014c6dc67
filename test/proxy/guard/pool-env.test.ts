// GUARDRAIL_WEBHOOK_* settings (seed 000 Limits) parsed strictly, and the pool limit holding on the wire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPromptGuards, type PromptGuards } from '../../../src/proxy/guard/factory.js';
import { webhookPoolSettings } from '../../../src/proxy/guard/pool-env.js';
import { ProblemError } from '../../../src/problem.js';
import { chat, ctxOf, guardsFor, llmManifests, webhookBackend, webhookRef } from './guard-harness.js';
import { startReferenceWebhook, type ReferenceWebhook } from './reference-webhook.js';

describe('webhook pool settings from the environment', () => {
  it('defaults to 100 connections, 300 s keepalive, a 10 s call timeout and 8 MiB of held stream', () => {
    expect(webhookPoolSettings({})).toEqual({
      maxConnections: 100,
      keepAliveSeconds: 300,
      timeoutSeconds: 10,
      streamBufferBytes: 8 * 1024 * 1024,
    });
    expect(webhookPoolSettings({ GUARDRAIL_WEBHOOK_MAX_CONNECTIONS: '' })).toMatchObject({ maxConnections: 100 });
  });

  it('reads the variables, with 0 connections meaning no limit', () => {
    expect(
      webhookPoolSettings({
        GUARDRAIL_WEBHOOK_MAX_CONNECTIONS: '0',
        GUARDRAIL_WEBHOOK_KEEPALIVE_SECONDS: ' 30 ',
        GUARDRAIL_WEBHOOK_TIMEOUT_SECONDS: '2',
        GUARDRAIL_STREAM_BUFFER_BYTES: '65536',
      }),
    ).toEqual({ maxConnections: 0, keepAliveSeconds: 30, timeoutSeconds: 2, streamBufferBytes: 65536 });
  });

  it('rejects malformed values naming every bad variable', () => {
    const env = {
      GUARDRAIL_WEBHOOK_MAX_CONNECTIONS: 'lots',
      GUARDRAIL_WEBHOOK_KEEPALIVE_SECONDS: '0',
      GUARDRAIL_WEBHOOK_TIMEOUT_SECONDS: '1.5',
      GUARDRAIL_STREAM_BUFFER_BYTES: '100',
    };
    expect(() => webhookPoolSettings(env)).toThrow(ProblemError);
    expect(() => createPromptGuards({ env })).toThrow(
      [
        'environment: GUARDRAIL_WEBHOOK_MAX_CONNECTIONS: must be a whole number from 0 to 1000000, got "lots"',
        'environment: GUARDRAIL_WEBHOOK_KEEPALIVE_SECONDS: must be a whole number from 1 to 1000000, got "0"',
        'environment: GUARDRAIL_WEBHOOK_TIMEOUT_SECONDS: must be a whole number from 1 to 1000000, got "1.5"',
        'environment: GUARDRAIL_STREAM_BUFFER_BYTES: must be a whole number from 1024 to 67108864, got "100"',
      ].join('\n'),
    );
    expect(() => webhookPoolSettings({ GUARDRAIL_WEBHOOK_MAX_CONNECTIONS: '-1' })).toThrow(/got "-1"/);
  });
});

describe('webhook connection pool', () => {
  const all: PromptGuards[] = [];
  let hook: ReferenceWebhook;
  beforeAll(async () => {
    hook = await startReferenceWebhook();
  });
  afterAll(async () => {
    await Promise.all(all.map((p) => p.close()));
    await hook.close();
  });

  const concurrentCalls = async (env: Record<string, string>) => {
    hook.delayMs = 150;
    const before = hook.connectionsOpened;
    const { guards } = guardsFor(
      llmManifests({ request: [{ webhook: { backendRef: webhookRef } }] }, webhookBackend(hook.port)),
      all,
      env,
    );
    const body = chat({ role: 'user', content: 'hi' });
    const verdicts = await Promise.all([1, 2, 3].map(() => guards?.request?.(body, ctxOf(body))));
    expect(verdicts).toEqual([{ action: 'allow' }, { action: 'allow' }, { action: 'allow' }]);
    return hook.connectionsOpened - before;
  };

  it('opens at most GUARDRAIL_WEBHOOK_MAX_CONNECTIONS connections to a webhook, reusing them', async () => {
    expect(await concurrentCalls({ GUARDRAIL_WEBHOOK_MAX_CONNECTIONS: '1' })).toBe(1);
  });

  it('opens a connection per concurrent call when unlimited (0)', async () => {
    expect(await concurrentCalls({ GUARDRAIL_WEBHOOK_MAX_CONNECTIONS: '0' })).toBe(3);
  });
});
