// The transformation engine's fast paths give exactly what the plain ones give: the message view read straight
// from the message (headers, body, JSON) against the same data bound as plain objects, which @bufbuild/cel
// converts itself; a carried-over part of the body's JSON against the library's walk; the header edits in one
// copy against the modifier and the hop-by-hop filter in turn.
import { describe, expect, it, vi } from 'vitest';
import { celBody } from '../../src/proxy/policy/cel/snapshot-cel.js';
import {
  applyValues,
  compileTransformation,
  evaluateStep,
  messageView,
  type Message,
  type TransformStep,
} from '../../src/proxy/policy/transformation.js';

const json = {
  model: 'gpt-large',
  messages: [
    { role: 'system', content: 'You answer briefly.' },
    { role: 'user', content: 'Hi', extra: { n: [1, 2.5, null, true] } },
  ],
  max_tokens: 64,
  'x-y': { '': 'empty key' },
};

function stepOf(body: string, set: { name: string; expression: string }[] = []): TransformStep {
  const plan = compileTransformation({ request: { set, add: [], remove: [], body }, response: null }, 'at', (p, m) => {
    throw new Error(`${p}: ${m}`);
  });
  return plan!.request!;
}

const message = (text: string, headers: Record<string, string | string[]> = {}): Message => ({
  method: 'POST',
  path: '/shaped/x?q=1',
  headers: { host: 'gw.local', 'x-user': 'ann', 'x-multi': ['a', 'b'], ...headers },
  body: Buffer.from(text),
});

/** The same request bound as plain objects, as @bufbuild/cel converts them on every read (`json` when read). */
function plainView(m: Message, text: string, step: TransformStep): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  let parsed: unknown = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: `request.json` is an empty map
  }
  const view = { headers, method: m.method, path: '/shaped/x', host: headers.host, body: text };
  return step.readsJson ? { ...view, json: parsed } : view;
}

/** The body each binding gives, as text, or the failure's message. */
function bodies(expression: string, text: string): [string, string] {
  const step = stepOf(expression);
  const m = message(text);
  const out = (request: unknown): string => {
    const v = evaluateStep(step, { request: request as Record<string, unknown> }, 'at');
    return v instanceof Error ? `failed: ${v.message}` : (v.body?.toString() ?? '');
  };
  return [out(messageView(m, step)), out(plainView(m, text, step))];
}

describe('transformation engine fast paths', () => {
  const text = JSON.stringify(json);
  it.each([
    'request.json',
    'request.json.messages',
    "{'model': 'gpt-small', 'user': request.headers['x-user'], 'messages': request.json.messages}",
    'request.json.messages[1]',
    'request.json.messages[1].extra.n',
    'request.json.messages.map(m, m.role)',
    "request.json.messages.filter(m, m.role == 'user')",
    "{'n': request.json.messages.size(), 'k': size(request.json), 'has': has(request.json.model)}",
    "{'t': request.json.max_tokens + 1.0, 'e': request.json['x-y']}",
    'request.json.missing',
    'request.json.messages[5]',
    'request.headers',
    "{'size': size(request.headers), 'in': 'x-user' in request.headers, 'multi': request.headers['x-multi']}",
    'request',
    "{'p': request.path, 'h': request.host, 'm': request.method, 'b': request.body}",
  ])('%s: the view gives what plain objects give', (expression) => {
    const [view, plain] = bodies(expression, text);
    expect(view).toBe(plain);
    expect(view).not.toBe('');
  });

  it('carries a part of the JSON over as it is, and falls back to the walk where a number may not be finite', () => {
    expect(bodies('request.json.messages', text)[0]).toBe(JSON.stringify(json.messages));
    const huge = '{"messages": [{"n": 1e400}]}';
    const [view, plain] = bodies('request.json.messages', huge);
    expect(view).toBe(plain);
    expect(view).toMatch(/^failed: at\.body /);
    const notJson = bodies('request.json', 'not json');
    expect(notJson[0]).toBe(notJson[1]);
    expect(celBody(JSON.parse('{"a": 1}'))).toEqual(Buffer.from('{"a":1}'));
  });

  it('never parses the body when no expression evaluated reaches request.json', () => {
    const step = stepOf("request.method == 'GET' ? request.json.model : 'none'");
    expect(step.readsJson).toBe(true);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const m = message('{"model": "m"}');
      expect(evaluateStep(step, { request: messageView(m, step) }, 'at')).toMatchObject({ body: Buffer.from('none') });
      expect(parse).not.toHaveBeenCalled();
      const get = { ...m, method: 'GET' };
      expect(evaluateStep(step, { request: messageView(get, step) }, 'at')).toMatchObject({ body: Buffer.from('m') });
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it.each<[string, Record<string, string | string[]>]>([
    ['plain headers', {}],
    ['a Connection header naming another', { connection: 'x-tenant, x-user', te: 'trailers' }],
    ['an upper-case name', { 'X-Via': 'old' }],
    [
      'hop-by-hop and pseudo headers',
      { 'proxy-authorization': 'x', ':authority': 'a', 'transfer-encoding': 'chunked' },
    ],
  ])('applies header edits in one copy exactly as the modifier and the filter do (%s)', (_, extra) => {
    const step = compileTransformation(
      {
        request: {
          set: [{ name: 'X-Tenant', expression: "'t'" }],
          add: [
            { name: 'X-Via', expression: "'gw'" },
            { name: 'Set-Cookie', expression: "'b=2'" },
            { name: 'X-Multi', expression: "'c'" },
          ],
          remove: ['X-User'],
          body: "'new body'",
        },
        response: null,
      },
      'at',
      () => undefined,
    )!.request!;
    const m = message('{}', { 'set-cookie': 'a=1', 'x-via': 'first', ...extra });
    const values = evaluateStep(step, { request: messageView(m, step) }, 'at');
    if (values instanceof Error) throw values;
    const fast = applyValues(step, m, values);
    const slow = applyValues({ ...step, onePass: false }, m, values);
    expect(step.onePass).toBe(true);
    expect(fast).toEqual(slow);
    expect(Object.keys(fast.headers)).toEqual(Object.keys(slow.headers));
  });
});
