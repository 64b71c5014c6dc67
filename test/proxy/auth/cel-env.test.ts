// The shared data-plane CEL environment (also used by guardrail header expressions).
import { describe, expect, it } from 'vitest';
import {
  celJsonOf,
  celMapOf,
  compileCel,
  holds,
  isCelMap,
  jsonSourceOf,
  type CelBindings,
} from '../../../src/proxy/policy/cel/env.js';
import { celBody } from '../../../src/proxy/policy/cel/snapshot-cel.js';

describe('data-plane CEL environment', () => {
  it('evaluates string values for header expressions, with the strings extension', () => {
    const e = compileCel('"user-" + jwt.sub.upperAscii()', ['jwt', 'request', 'llmRequest']);
    expect(e.evaluate({ jwt: { sub: 'ada' } })).toBe('user-ADA');
  });

  it('returns an Error, not a throw, when a variable is not bound (jwt.sub without a token)', () => {
    const e = compileCel('jwt.sub');
    expect(e.evaluate({})).toBeInstanceOf(Error);
    expect(holds(e, {})).toBe(false);
  });

  it('limits the variables an expression may name', () => {
    expect(() => compileCel('llmRequest.model == "x"', ['jwt', 'request', 'mcp'])).toThrow(
      'names unknown variable "llmRequest"; known variables are jwt, request, mcp',
    );
    expect(compileCel('llmRequest.model == "x"').evaluate({ llmRequest: { model: 'x' } })).toBe(true);
  });

  it('reports a parse error as one sentence', () => {
    expect(() => compileCel('request.path ==')).toThrow(/^is not a valid CEL expression: at /);
  });

  it('answers a member path and a constant exactly as the CEL program does (same values, same failures)', () => {
    const view = (): CelBindings => ({
      request: celMapOf(
        new Map<string, unknown>([
          ['method', 'POST'],
          ['headers', celMapOf(new Map([['x-user', 'ann']]))],
          ['json', { n: 3, ok: true, messages: [{ role: 'user' }], constructor: 'x' }],
        ]),
      ),
    });
    const plain: CelBindings = {
      request: { method: 'GET', headers: { 'x-user': 'bob' }, list: ['a'], json: { n: 3, ok: true, messages: [] } },
    };
    const paths = [
      'request.method',
      "request.headers['x-user']",
      'request.headers.x-user',
      "request.headers['x-none']",
      'request.json.n',
      'request.json.ok',
      'request.json.messages',
      "request['json']['messages'][0]['role']",
      'request.json.constructor',
      'request.list.a',
      'jwt.sub',
    ];
    for (const bindings of [view(), plain])
      for (const source of paths) {
        if (source.includes('-user') && source.includes('.x-')) continue; // not a path: `x - user`
        // `[e][0]` is the same value through the CEL program, never the shortcut.
        const through = compileCel(`[${source}][0]`).evaluate(bindings);
        const got = compileCel(source).evaluate(bindings);
        if (through instanceof Error) expect(got, source).toBeInstanceOf(Error);
        else expect(got, source).toEqual(through);
      }
  });

  it('answers a joined string and a map literal exactly as the CEL program does (same values, same failures)', () => {
    const body = '{"n": 3, "ok": true, "messages": [{"role": "user", "content": "hi"}], "meta": {"a": [1, null]}}';
    const view = (): CelBindings => ({
      request: celMapOf(
        new Map<string, unknown>([
          ['method', 'POST'],
          ['headers', celMapOf(new Map([['x-user', 'ann']]))],
          ['json', celJsonOf(body)],
        ]),
      ),
      jwt: { sub: 'ann', big: Infinity, n: 2 },
    });
    const plain: CelBindings = {
      request: { method: 'GET', headers: { 'x-user': 'bob' }, json: JSON.parse(body) as Record<string, unknown> },
      jwt: { sub: 'bob', big: Infinity, n: 2 },
    };
    const sources = [
      "request.headers['x-user'] + '@' + request.method",
      "'u-' + jwt.sub + '-' + request.headers['x-user']",
      "'a' + request.json.n",
      'request.method + request.json.ok',
      "request.headers['x-none'] + 'x'",
      "{'model': 'm', 'user': request.headers['x-user'], 'messages': request.json.messages}",
      "{'n': request.json.n, 'ok': request.json.ok, 'flag': false, 'meta': request.json.meta, 'sub': jwt.sub}",
      "{'a': request.json.missing}",
      "{'a': request.method, 'a': 'y'}",
      "{'1': request.method, 'b': 'x'}",
      "{'__proto__': request.method}",
      "{'big': jwt.big, 'n': jwt.n}",
      "{'m': request.json.messages[0]}",
    ];
    /** What a body made of the value is, or that it failed. */
    const asBody = (v: unknown): string => {
      const b = celBody(v);
      return b instanceof Error ? `failed: ${b.message}` : b.toString();
    };
    for (const bindings of [view(), plain])
      for (const source of sources) {
        // `[e][0]` is the same value through the CEL program, never a shortcut.
        const through = compileCel(`[${source}][0]`).evaluate(bindings);
        const got = compileCel(source).evaluate(bindings);
        if (through instanceof Error) {
          expect(got, source).toBeInstanceOf(Error);
          continue;
        }
        expect(got instanceof Error, source).toBe(false);
        expect(isCelMap(got), source).toBe(isCelMap(through));
        if (typeof through === 'string') expect(got, source).toBe(through);
        expect(asBody(got), source).toBe(asBody(through));
      }
    // The shortcut was taken: the map stands for plain JSON data, serialized as it is (no walk of CEL values).
    const built = compileCel(sources[5]!).evaluate(view());
    expect(jsonSourceOf(built)).toEqual({ model: 'm', user: 'ann', messages: [{ role: 'user', content: 'hi' }] });
    expect(jsonSourceOf(compileCel(`[${sources[5]!}][0]`).evaluate(view()))).toBeUndefined();
  });

  it('evaluates an expression that names no variable once, when it compiles', () => {
    const e = compileCel("{'route': 'shaped', 'n': 1 + 2}");
    const first = e.evaluate({});
    expect(e.evaluate({ request: { method: 'GET' } })).toBe(first);
    expect(compileCel("'gw'").evaluate({})).toBe('gw');
    expect(compileCel('1 / 0').evaluate({})).toBeInstanceOf(Error);
  });
});
