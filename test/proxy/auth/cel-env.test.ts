// The shared data-plane CEL environment (also used by guardrail header expressions).
import { describe, expect, it } from 'vitest';
import { compileCel, holds } from '../../../src/proxy/policy/cel/env.js';

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
});
