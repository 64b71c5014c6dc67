// An AI provider's own `policies.transformation` (issue 34) through the real translator and proxy runtime,
// against loopback fakes of the Anthropic and OpenAI APIs that record what they received: the request step on
// the call to that provider only (its body in the provider's format, its credential neither seen nor
// removable), the response step's headers on the answer the client gets from it, and on failover the other
// provider's (none here).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeVendor, type FakeVendor } from './fake-vendors.js';
import { GATEWAY, aiRoute, chat, sseData, startLlmProxy, type LlmProxy } from './llm-harness.js';

const KEY = 'sk-ant-SECRET-shaped-7788';
const ask = { model: 'claude-sonnet-4-20250514', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };
const cel = (s: string): string => JSON.stringify(s);

// The Anthropic provider carries the transformation; the OpenAI one does not.
const shaped = (port: number): string => `      - name: shaped
        anthropic: {}
        host: 127.0.0.1
        port: ${port}
        policies:
          auth: {key: ${KEY}}
          transformation:
            request:
              set:
              - {name: x-tenant-id, value: ${cel("request.headers['x-tenant']")}}
              - {name: x-saw-credential, value: ${cel("'x-api-key' in request.headers ? 'yes' : 'no'")}}
              add: [{name: x-path-seen, value: 'request.path'}]
              remove: [x-drop, x-api-key]
              body: ${cel("{'model': request.json.model, 'max_tokens': request.json.max_tokens + 1.0, 'messages': request.json.messages, 'stream': 'stream' in request.json && request.json.stream}")}
            response:
              set: [{name: x-served-by, value: ${cel("'shaped/' + string(response.code)")}}]
              remove: [x-upstream-secret]
`;
const plain = (
  port: number,
): string => `      - {name: plain, openai: {}, host: 127.0.0.1, port: ${port}, policies: {auth: {key: sk-plain}}}
`;

function manifests(anthropic: number, openai: number): string {
  const backend = (name: string, first: string, second: string): string => `---
apiVersion: gw.dev/v1alpha1
kind: GwBackend
metadata: {name: ${name}, namespace: default}
spec:
  ai:
    groups:
    - providers:
${first}    - providers:
${second}`;
  return `${GATEWAY}
${backend('shaped-first', shaped(anthropic), plain(openai))}
${backend('plain-first', plain(openai), shaped(anthropic))}
${aiRoute('shaped-first', '/shaped-first', 'shaped-first')}${aiRoute('plain-first', '/plain-first', 'plain-first')}`;
}

describe("an AI provider's own transformation", () => {
  let anthropic: FakeVendor, openai: FakeVendor, proxy: LlmProxy;
  const headers = { 'x-tenant': 'acme', 'x-drop': 'gone' };

  beforeAll(async () => {
    [anthropic, openai] = await Promise.all([startFakeVendor('anthropic'), startFakeVendor('openai')]);
    proxy = await startLlmProxy(manifests(anthropic.port, openai.port));
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([anthropic?.close(), openai?.close()]);
  });
  beforeEach(() => {
    for (const f of [anthropic, openai]) {
      f.received.length = 0;
      f.mode = { kind: 'ok' };
    }
    proxy.advance(600_000); // past any backoff a failed try left
  });

  it("edits the call to that provider (headers, and the body in the provider's format) and its answer's headers", async () => {
    for (const stream of [false, true]) {
      const res = await chat(`${proxy.base}/shaped-first/chat/completions`, { ...ask, stream }, headers);
      expect(res.status, res.text).toBe(200);
      if (stream) expect(sseData(res.text).at(-1)).toBe('[DONE]');
      expect(res.headers.get('x-served-by')).toBe('shaped/200');
      const got = anthropic.received.at(-1);
      expect(got?.headers['x-tenant-id']).toBe('acme');
      expect(got?.headers['x-drop']).toBeUndefined();
      expect(got?.headers['x-path-seen']).toBe('/v1/messages');
      // The credential is added after the step: not seen by it, not removed by it.
      expect(got?.headers['x-saw-credential']).toBe('no');
      expect(got?.headers['x-api-key']).toBe(KEY);
      // The body the step built from the Anthropic-format payload (content blocks; max_tokens 10 + 1).
      expect(got?.body).toEqual({
        model: ask.model,
        max_tokens: 11,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
        stream,
      });
    }
    expect(openai.received).toEqual([]);
  });

  it("applies the other provider's settings (none) when the shaped one fails over", async () => {
    anthropic.mode = { kind: 'status', status: 503 };
    const res = await chat(`${proxy.base}/shaped-first/chat/completions`, ask, headers);
    expect(res.status).toBe(200);
    expect(anthropic.received).toHaveLength(1);
    expect(openai.received).toHaveLength(1);
    const got = openai.received[0];
    expect(got?.headers['x-tenant-id']).toBeUndefined();
    expect(got?.headers['x-drop']).toBe('gone');
    expect(got?.body).toMatchObject({ max_tokens: 10 });
    expect(res.headers.get('x-served-by')).toBeNull();
  });

  it("applies the shaped provider's transformation when failover reaches it", async () => {
    openai.mode = { kind: 'status', status: 503 };
    const res = await chat(`${proxy.base}/plain-first/chat/completions`, ask, headers);
    expect(res.status).toBe(200);
    expect(openai.received[0]?.headers['x-tenant-id']).toBeUndefined();
    expect(anthropic.received[0]?.headers['x-tenant-id']).toBe('acme');
    expect(anthropic.received[0]?.body).toMatchObject({ max_tokens: 11 });
    expect(res.headers.get('x-served-by')).toBe('shaped/200');
  });

  it('fails the request naming the field when an expression cannot be evaluated, and sends nothing', async () => {
    const res = await chat(`${proxy.base}/shaped-first/chat/completions`, ask);
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({
      error: { code: 'transformation_failed', message: expect.stringContaining('transformation.request.set[0]') },
    });
    expect(res.text).not.toContain(KEY);
    expect(anthropic.received).toEqual([]);
    expect(openai.received).toEqual([]);
  });
});
