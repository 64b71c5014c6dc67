// CEL authorization semantics (seed 001 Authorization) and load-time compile errors.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileAuthorization,
  compileStandaloneRules,
  type AuthorizationContext,
  type AuthorizationRule,
} from '../../../src/proxy/auth/authorization.js';
import { ProblemError } from '../../../src/problem.js';

interface Case {
  name: string;
  rules: AuthorizationRule[];
  ctx: Partial<AuthorizationContext>;
  allows: boolean;
}
const cases = JSON.parse(
  readFileSync(new URL('./testdata/authorization-cases.json', import.meta.url), 'utf8'),
) as Case[];

const fill = (c: Partial<AuthorizationContext>): AuthorizationContext => ({
  jwt: c.jwt,
  request: c.request ?? { method: 'POST', path: '/mcp', headers: {} },
  mcp: c.mcp ?? { method: 'tools/list' },
});

describe('authorization rules', () => {
  for (const c of cases) {
    it(`${c.allows ? 'allows' : 'denies'}: ${c.name}`, () => {
      expect(compileAuthorization(c.rules, 'spec.rules').allows(fill(c.ctx))).toBe(c.allows);
    });
  }

  it('names the rule whose expression does not parse', () => {
    let err: unknown;
    try {
      compileStandaloneRules(['jwt.sub == "a"', 'true', '"x" in jwt.roles &&']);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProblemError);
    const p = (err as ProblemError).problems;
    expect(p).toHaveLength(1);
    expect(p[0]?.path).toBe('mcp.policies.authorization.rules[2]');
    expect((err as Error).message).toMatch(
      /^config: mcp\.policies\.authorization\.rules\[2\]: "\\"x\\" in jwt\.roles &&" is not a valid CEL expression/,
    );
  });

  it('rejects an expression that names an unknown variable, naming the expression inside a multi-expression rule', () => {
    expect(() =>
      compileAuthorization(
        [{ action: 'allow', expressions: ['true', 'claims.sub == "a"'] }],
        'spec.policy.authorization',
      ),
    ).toThrow(
      'spec.policy.authorization[0].expressions[1]: "claims.sub == \\"a\\"" names unknown variable "claims"; known variables are jwt, request, mcp, a2a, apiKey',
    );
  });

  it('accepts comprehension variables inside macros', () => {
    const a = compileStandaloneRules(['jwt.roles.exists(r, r.startsWith("mcp."))']);
    expect(a.allows(fill({ jwt: { roles: ['mcp.user'] } }))).toBe(true);
    expect(a.allows(fill({ jwt: { roles: ['other'] } }))).toBe(false);
  });

  it('reads a rule\'s variables from its syntax: "a2a" or "mcp.tool" inside a string is no read, and the rule still decides', () => {
    const groups = compileAuthorization([{ action: 'allow', expressions: ['"a2a-users" in jwt.groups'] }], 'r');
    expect(groups.allows(fill({ jwt: { groups: ['other'] } }))).toBe(false);
    expect(groups.allows(fill({ jwt: { groups: ['a2a-users'] } }))).toBe(true);
    const scope = compileAuthorization([{ action: 'allow', expressions: ['jwt.scope == "mcp.tool"'] }], 'r');
    expect(scope.allows(fill({ jwt: { scope: 'read' }, mcp: { method: 'initialize' } }))).toBe(false);
  });

  it("evaluates a rule reading a2a on a route that is not an A2A route (an Allow there never holds); skips it only for an A2A route's card fetch", () => {
    const rules = compileAuthorization([{ action: 'allow', expressions: ['a2a.method == "GetTask"'] }], 'r');
    expect(rules.allows(fill({}))).toBe(false);
    expect(rules.allows({ ...fill({}), a2aRoute: true })).toBe(true);
    expect(rules.allows({ ...fill({}), a2aRoute: true, a2a: { method: 'CancelTask' } })).toBe(false);
    expect(rules.allows({ ...fill({}), a2aRoute: true, a2a: { method: 'GetTask' } })).toBe(true);
  });
});
