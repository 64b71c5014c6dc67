// The shared data-plane CEL environment (also used by guardrail header expressions).
import { describe, expect, it } from 'vitest';
import { celMapOf, compileCel, holds, type CelBindings } from '../../../src/proxy/policy/cel/env.js';

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

  it('evaluates an expression that names no variable once, when it compiles', () => {
    const e = compileCel("{'route': 'shaped', 'n': 1 + 2}");
    const first = e.evaluate({});
    expect(e.evaluate({ request: { method: 'GET' } })).toBe(first);
    expect(compileCel("'gw'").evaluate({})).toBe('gw');
    expect(compileCel('1 / 0').evaluate({})).toBeInstanceOf(Error);
  });
});
