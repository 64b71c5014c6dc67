// MCP guardrails on a 2025 target's requests for input when a 2026-07-28 client answers them in a retry
// (input-bridge.ts): manifests → translator → IR → proxy runtimes with one session key, the SDK 2.4 client
// pinned to 2026-07-28, the asking 2025 target, and a real processor that masks a secret in a sampling
// answer and rejects a declined elicitation. The answer meets the processor as a 2025 client's would: on
// the replica holding the call (its target gives no event ids) and on another replica that picks the
// call up with Last-Event-ID (`aroundServerRequest` on resume).
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../src/proxy/auth/route-security.js';
import type { ProcessorRequest } from '../../src/proxy/mcp/guardrails/index.js';
import { ProxyRuntime } from '../../src/proxy/runtime.js';
import { sessionKeysFrom } from '../../src/proxy/mcp/session-keys.js';
import { startAskingServer, type AskingServer } from '../fixtures/mcp-2025-asking-server.js';
import { textOf, waitFor } from './harness.js';
import { answeringClient, type Answers } from './input-bridge-client.js';
import { capturingLogger, prefixRoutes, startHttp, type Running } from './mcp-guardrails/servers.js';
import { startBalancer } from './round-robin.js';
import { GATEWAY_WEB, translatedIr } from './translated-ir.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** Masks "hunter2" in a client's sampling answer; rejects an elicitation answer that declines (`ok: false`). */
async function startAnswerProcessor(): Promise<Running & { seen: ProcessorRequest[] }> {
  const seen: ProcessorRequest[] = [];
  const decide = (b: ProcessorRequest): unknown => {
    if (b.phase === 'serverResponse' && b.method === 'sampling/createMessage')
      return {
        action: 'modify',
        result: JSON.parse(JSON.stringify(b.result).replaceAll('hunter2', '****')) as unknown,
      };
    const content = (b.result?.content ?? {}) as { ok?: unknown };
    if (b.phase === 'serverResponse' && b.method === 'elicitation/create' && content.ok === false)
      return { action: 'reject', error: { code: -32097, message: 'a declined approval is not passed on' } };
    return { action: 'allow' };
  };
  const running = await startHttp((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const b = JSON.parse(body) as ProcessorRequest;
      seen.push(b);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(decide(b)));
    });
  });
  return { ...running, seen };
}

function manifests(target: string, processor: string): string {
  const { port } = new URL(target);
  return `${GATEWAY_WEB}${prefixRoutes(['bridge'])}---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: bridge, namespace: default}
spec:
  mcp:
    targets: [{name: old, static: {host: 127.0.0.1, port: ${port}, path: /mcp}}]
  policies:
    mcp:
      guardrails:
        processors:
        - remote: {url: ${processor}}
          methods: {"sampling/createMessage": Full, "elicitation/create": Full}
`;
}

/** `n` proxy replicas sharing a session key behind a round-robin balancer, with the guardrail processor. */
async function setup(
  eventStore: boolean,
  n: number,
): Promise<{
  old: AskingServer;
  processor: Awaited<ReturnType<typeof startAnswerProcessor>>;
  url: string;
  hits: number[];
}> {
  const old = await startAskingServer({ eventStore });
  const processor = await startAnswerProcessor();
  const keys = sessionKeysFrom({ SESSION_KEY: randomBytes(32).toString('base64') });
  const runtimes = Array.from(
    { length: n },
    () => new ProxyRuntime({ log: capturingLogger().log, security: createRouteSecurity(), sessionKeys: keys }),
  );
  await Promise.all(runtimes.map((r) => r.apply(translatedIr(manifests(old.url, processor.url)))));
  const urls = runtimes.map((r) => `http://127.0.0.1:${Object.values(r.boundPorts())[0]}/bridge`);
  const lb = await startBalancer(urls, '/bridge');
  closers.push(async () => {
    await lb.close();
    await Promise.all(runtimes.map((r) => r.close()));
    await processor.close();
    await old.close();
  });
  return { old, processor, url: lb.url, hits: lb.hits };
}

async function plan(url: string, topic: string, answers: Answers): Promise<string> {
  const { client } = await answeringClient(url, answers);
  closers.push(() => client.close());
  return textOf(await client.callTool({ name: 'plan', arguments: { topic } }));
}

const answered = (p: { seen: ProcessorRequest[] }, method: string) =>
  p.seen.filter((s) => s.phase === 'serverResponse' && s.method === method);

describe("MCP guardrails on a 2026 client's answers to a 2025 target", () => {
  it('passes the sampling answer as the processor modified it, on the replica holding the call', async () => {
    const { old, processor, url } = await setup(false, 1);
    expect(await plan(url, 'deploy', { said: 'the secret is hunter2' })).toBe('deploy:the secret is ****:accept:true');
    expect(answered(processor, 'sampling/createMessage')[0]?.result).toMatchObject({
      content: { type: 'text', text: 'the secret is hunter2' },
    });
    await waitFor(() => old.sessions() === 0);
  });

  it("sends the target the processor's error for an answer it rejects, on the replica holding the call", async () => {
    const { old, processor, url } = await setup(false, 1);
    expect(await plan(url, 'risky', { ok: false })).toBe('refused:-32097');
    expect(answered(processor, 'elicitation/create')).toHaveLength(1);
    await waitFor(() => old.sessions() === 0);
  });

  it('guards the answers the same way when another replica picks the call up with Last-Event-ID', async () => {
    const { old, processor, url, hits } = await setup(true, 2);
    expect(await plan(url, 'ship', { said: 'hunter2 again' })).toBe('ship:**** again:accept:true');
    expect(hits.every((h) => h > 0)).toBe(true);
    // The rounds were resumed at the target, and each answer met the processor once, before the target.
    expect(old.seen.filter((s) => s.method === 'GET' && s.lastEventId !== undefined)).toHaveLength(2);
    expect(answered(processor, 'sampling/createMessage')).toHaveLength(1);
    expect(answered(processor, 'elicitation/create')).toHaveLength(1);
    expect(await plan(url, 'late', { ok: false })).toBe('refused:-32097');
    await waitFor(() => old.sessions() === 0);
  });
});
