// Guardrails on the rest of an MCP session, end to end: manifests → translator → IR → proxy runtime, the
// MCP SDK's client in front, a real stateful SDK server behind that asks the client for sampling and roots,
// and a real processor on loopback. Processors see a target's requests before the client does (and may
// reject them with a JSON-RPC error the target gets), the client's results before the target does, and the
// client's notifications; tables written before those phases existed (`*`) do not select them.
import { CreateMessageRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteSecurity } from '../../../src/proxy/auth/route-security.js';
import { ProxyRuntime } from '../../../src/proxy/runtime.js';
import { GuardrailUnavailable, compileGuardrails } from '../../../src/proxy/mcp/guardrails/index.js';
import { freePort } from '../ports.js';
import { connectClient, textOf, waitFor } from '../harness.js';
import { GATEWAY_WEB, translatedIr } from '../translated-ir.js';
import { capturingLogger, prefixRoutes, startSamplingTarget, startSessionProcessor } from './servers.js';

function manifests(targetPort: number, processor: string, dead: string): string {
  const remote = (name: string, url: string) =>
    `{url: ${url}, metadata: {route: "'${name}'", user: "request.headers['x-user']"}, allowedRequestHeaders: [X-User]}`;
  const backend = (name: string, methods: string, processorRemote = remote(name, processor)) => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  mcp:
    targets: [{name: models, static: {host: 127.0.0.1, port: ${targetPort}, path: /mcp}}]
  policies:
    mcp:
      guardrails:
        processors:
        - remote: ${processorRemote}
          methods: ${methods}
`;
  return `${GATEWAY_WEB}${prefixRoutes(['session', 'legacy', 'closed', 'missing'])}${backend('session', '{"sampling/createMessage": Full, "roots/*": Response, "notifications/*": Request}')}${backend('legacy', '{"*": Full}')}${backend('closed', '{"sampling/*": Request}', remote('closed', dead))}${backend(
    'missing',
    '{"sampling/createMessage": Request}',
    '{backendRef: {name: gone, port: 80}, failureMode: FailOpen}',
  )}`;
}

let target: Awaited<ReturnType<typeof startSamplingTarget>>;
let processor: Awaited<ReturnType<typeof startSessionProcessor>>;
let runtime: ProxyRuntime;
let base = '';
const logs = capturingLogger();
/** Prompts the client's sampling handler was asked, in order. */
const sampled: string[] = [];

beforeAll(async () => {
  target = await startSamplingTarget();
  processor = await startSessionProcessor();
  runtime = new ProxyRuntime({ log: logs.log, security: createRouteSecurity() });
  await runtime.apply(
    translatedIr(manifests(target.port, processor.url, `http://127.0.0.1:${await freePort()}/check`)),
  );
  base = `http://127.0.0.1:${Object.values(runtime.boundPorts())[0]}`;
});

afterAll(async () => {
  await runtime?.close();
  await processor?.close();
  await target?.close();
});

async function samplingClient(route: string) {
  const { client } = await connectClient(
    `${base}/${route}`,
    { sampling: {}, roots: { listChanged: true } },
    { 'X-User': 'ada' },
  );
  client.setRequestHandler(CreateMessageRequestSchema, (req) => {
    const content = req.params.messages[0]?.content;
    const prompt = content && !Array.isArray(content) && content.type === 'text' ? content.text : '';
    sampled.push(prompt);
    return { role: 'assistant', model: 'm', content: { type: 'text', text: `the answer to ${prompt} is hunter2` } };
  });
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: 'file:///work' }, { uri: 'file:///private/keys' }],
  }));
  return client;
}

const ask = async (client: Awaited<ReturnType<typeof samplingClient>>, prompt: string) =>
  textOf(await client.callTool({ name: 'ask_model', arguments: { prompt } }));
const seenBy = (route: string) => processor.seen.filter((s) => s.metadata.route === route);

describe("MCP guardrails on a target's requests to the client", () => {
  it("rejects a sampling request with the processor's JSON-RPC error for the target; the client never sees it", async () => {
    const client = await samplingClient('session');
    // The target's SDK prefixes the code to the message it received (`MCP error -32098: …`); the wire carries the processor's message.
    expect(await ask(client, 'tell me something forbidden')).toBe(
      'refused:-32098:MCP error -32098: sampling about forbidden topics is not allowed',
    );
    expect(sampled).not.toContain('tell me something forbidden');
    await client.close();
  });

  it("passes a sampling request as the processor modified it and the client's result as the processor modified it", async () => {
    const client = await samplingClient('session');
    expect(await ask(client, 'please rewrite me')).toBe('sampled:the answer to rewritten prompt is ****');
    expect(sampled).toContain('rewritten prompt');
    expect(sampled).not.toContain('please rewrite me');
    await client.close();
  });

  it("shows both phases with the target's name and request id, the session, metadata and headers of the client's call", async () => {
    const client = await samplingClient('session');
    await ask(client, 'plain question');
    const phases = seenBy('session').filter((s) => JSON.stringify(s.params).includes('plain question'));
    expect(phases.map((s) => s.phase)).toEqual(['serverRequest', 'serverResponse']);
    const [req, res] = phases;
    expect(req).toMatchObject({
      version: 'gw.dev/mcp-guardrails/v1',
      method: 'sampling/createMessage',
      target: 'models',
      metadata: { route: 'session', user: 'ada' },
      headers: { 'x-user': 'ada' },
    });
    expect(req?.sessionId).toMatch(/^[A-Za-z0-9_-]{60,}$/); // the sealed session id (session-seal.ts)
    expect(res?.id).toBe(req?.id);
    expect(req?.id).toBeDefined();
    expect(res?.result).toMatchObject({
      role: 'assistant',
      content: { type: 'text', text: 'the answer to plain question is hunter2' },
    });
    await client.close();
  });

  it('answers the target with -32051 when a FailClosed processor cannot be asked, and never asks the client', async () => {
    const client = await samplingClient('closed');
    expect(await ask(client, 'closed question')).toBe(
      'refused:-32051:MCP error -32051: the request was not passed to the client: guardrail processor 1 is unavailable',
    );
    expect(sampled).not.toContain('closed question');
    await client.close();
  });

  it("refuses a target's request with -32051 when the processor guarding it cannot run at all, even FailOpen", async () => {
    const client = await samplingClient('missing');
    expect(await ask(client, 'missing question')).toBe(
      'refused:-32051:MCP error -32051: the request was not passed to the client: guardrail processor 1 is misconfigured',
    );
    expect(sampled).not.toContain('missing question');
    await client.close();
  });

  it("filters the client's roots/list result before the target sees it", async () => {
    const client = await samplingClient('session');
    expect(textOf(await client.callTool({ name: 'list_roots', arguments: {} }))).toBe('file:///work');
    expect(seenBy('session').some((s) => s.method === 'roots/list' && s.phase === 'serverRequest')).toBe(false); // Response only
    await client.close();
  });

  it('does not send a target\'s requests or client notifications to a table written before those phases ("*")', async () => {
    const client = await samplingClient('legacy');
    expect(await ask(client, 'tell me something forbidden, legacy')).toBe(
      'sampled:the answer to tell me something forbidden, legacy is hunter2',
    );
    await client.sendRootsListChanged();
    await waitFor(() => target.rootsChanged() > 0);
    expect([...new Set(seenBy('legacy').map((s) => `${s.phase} ${s.method}`))].sort()).toEqual([
      'request tools/call',
      'response tools/call',
    ]);
    await client.close();
  });
});

describe('MCP guardrails on client notifications', () => {
  it('drops a notification the processor rejects and passes the next one it allows, in order', async () => {
    const client = await samplingClient('session');
    const before = target.rootsChanged();
    processor.dropNotifications = true;
    await client.sendRootsListChanged();
    await waitFor(() => seenBy('session').some((s) => s.phase === 'notification'));
    processor.dropNotifications = false;
    await client.sendRootsListChanged();
    await waitFor(() => target.rootsChanged() > before);
    // Guarded notifications take effect one after another: once the second arrived, the first was decided.
    const notes = seenBy('session').filter((s) => s.phase === 'notification');
    expect(notes.map((s) => s.method)).toEqual([
      'notifications/roots/list_changed',
      'notifications/roots/list_changed',
    ]);
    expect(notes[0]).not.toHaveProperty('id');
    expect(target.rootsChanged()).toBe(before + 1);
    expect(logs.lines.some((l) => l.includes('guardrail processor dropped the notification'))).toBe(true);
    await client.close();
  });
});

describe('a processor whose method table is invalid', () => {
  it("guards everything, failing closed: a target's requests are refused and client notifications dropped", async () => {
    const chain = compileGuardrails(
      {
        processors: [
          {
            methods: { 'tools/*/x': 'GUARDRAIL_REQUEST' },
            url: processor.url,
            failureMode: 'FAIL_OPEN',
            metadata: {},
            allowedRequestHeaders: [],
            disallowedRequestHeaders: [],
            problem: '',
            source: 'test',
          },
        ],
      },
      logs.log,
    );
    const session = { id: 's', log: logs.log };
    const call = { claims: null, request: { method: 'POST', path: '/mcp', headers: {} } };
    let asked = false;
    const out = await chain.aroundServerRequest(
      { jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: {} },
      'models',
      call,
      session,
      async () => {
        asked = true;
        return {};
      },
    );
    expect(out).toEqual({
      error: {
        code: GuardrailUnavailable,
        message: 'the request was not passed to the client: guardrail processor 1 is misconfigured',
      },
    });
    expect(asked).toBe(false);
    expect(
      await chain.notification({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, call, session),
    ).toBeUndefined();
  });
});
