// Issue 33: MCP 2026-07-28 is stateless, so consecutive calls of one client may land on any proxy replica —
// including the continuation of a multi round-trip request, whose state travels with the client (the target's
// requestState, and whatever Gw seals around it), never in one proxy's memory. Two proxies of one standalone
// config and one SESSION_KEY, in front of Gw's 2026 everything server (@modelcontextprotocol/server 2.4).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionKeysFrom } from '../../src/proxy/mcp/session-keys.js';
import { startEverything2026, type UrlServer } from '../fixtures/url-server.js';
import { connect2026, pinned2026, textOf } from '../support/mcp-client-2026.js';
import { startProxy, type Started } from './harness.js';
import { startBalancer, type Balancer } from './round-robin.js';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'raw-client', version: '1.0.0' },
};

/** One stateless tools/call as the 2026 wire has it; the JSON-RPC answer, from a JSON or an SSE body. */
async function callTool(
  url: string,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: {}, _meta: meta, ...extra },
    }),
  });
  const body = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? body
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>)
        .find((m) => m.id === 1)
    : (JSON.parse(body) as Record<string, unknown>);
  expect(json, `HTTP ${res.status}: ${body.slice(0, 300)}`).toBeDefined();
  return json as Record<string, unknown>;
}

describe('stateless calls of one client across two proxy replicas', () => {
  let ts: UrlServer;
  let replicas: Started[];
  let lb: Balancer;

  beforeAll(async () => {
    ts = await startEverything2026();
    const keys = sessionKeysFrom({ SESSION_KEY: randomBytes(32).toString('base64') });
    const mcp = { targets: [{ name: 'ts', streamableHttp: { url: ts.url } }] };
    replicas = await Promise.all([startProxy(mcp, { sessionKeys: keys }), startProxy(mcp, { sessionKeys: keys })]);
    lb = await startBalancer(replicas.map((r) => r.url));
  }, 60_000);

  afterAll(async () => {
    await lb?.close();
    await Promise.all((replicas ?? []).map((r) => r.close()));
    ts?.stop();
  });

  it('answers a continuation on the other replica than the one that returned input_required', async () => {
    const [a, b] = replicas.map((r) => r.url) as [string, string];
    const round1 = (await callTool(a, 'test_input_required_result_multi_round')).result as Record<string, unknown>;
    expect(round1).toMatchObject({ resultType: 'input_required', inputRequests: { step1: expect.any(Object) } });
    const round2 = (
      await callTool(b, 'test_input_required_result_multi_round', {
        inputResponses: { step1: { action: 'accept', content: { name: 'Ada' } } },
        requestState: round1.requestState,
      })
    ).result as Record<string, unknown>;
    expect(round2).toMatchObject({ resultType: 'input_required', inputRequests: { step2: expect.any(Object) } });
    const done = await callTool(a, 'test_input_required_result_multi_round', {
      inputResponses: { step2: { action: 'accept', content: { color: 'teal' } } },
      requestState: round2.requestState,
    });
    expect(textOf(done.result)).toBe('Ada likes teal');
  });

  it('refuses a continuation whose state was altered, on either replica', async () => {
    const round1 = (await callTool(replicas[0]!.url, 'test_input_required_result_tampered_state')).result as {
      requestState: string;
    };
    const state = round1.requestState;
    const altered = state.slice(0, -2) + (state.endsWith('A') ? 'BB' : 'AA');
    for (const r of replicas) {
      const answer = await callTool(r.url, 'test_input_required_result_tampered_state', {
        inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
        requestState: altered,
      });
      expect(answer.error).toMatchObject({ code: -32602 });
    }
  });

  it('serves the TS 2.4 client pinned to 2026-07-28 through a round-robin balancer, every call on the next replica', async () => {
    const client = await connect2026(lb.url, pinned2026);
    try {
      const before = [...lb.hits];
      for (let i = 0; i < 4; i++)
        expect(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe(
          'This is a simple text response for testing.',
        );
      lb.hits.forEach((n, i) => expect(n - (before[i] ?? 0)).toBe(2));
      // Three rounds of one multi round-trip call: the balancer sends each to the other replica than the last.
      const mid = [...lb.hits];
      const result = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
      expect(textOf(result)).toBe('Ada likes teal');
      const rounds = lb.hits.map((n, i) => n - (mid[i] ?? 0));
      expect(rounds.reduce((x, y) => x + y)).toBe(3);
      expect(Math.min(...rounds)).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
  });
});
