// `gw validate` compiles traffic.authorization rules as the proxy does (issue 16 item 1): a rule naming
// an unknown variable is a problem offline, not a NACK at run time.
import { expect, it } from 'vitest';
import { validateText } from '../../src/cli/validate.js';

const policy = (expr: string) => `apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: p, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  traffic:
    authorization:
      action: Allow
      policy: {matchExpressions: ['${expr}']}
`;

it('reports an authorization rule that names a variable the proxy does not bind', () => {
  const r = validateText(policy('foo.bar == 1'), 'p.yaml');
  expect(r.problems).toEqual([
    {
      source: 'p.yaml',
      object: 'GwPolicy default/p',
      path: 'spec.traffic.authorization.policy.matchExpressions[0]',
      message: 'names unknown variable "foo"; known variables are jwt, request, mcp, a2a, apiKey, extauthz',
    },
  ]);
});

it('accepts an authorization rule over jwt, request and mcp', () => {
  expect(validateText(policy('jwt.sub == "alice" && request.method == "GET"'), 'p.yaml').problems).toEqual([]);
});

// Issue 31: a rule that compiles (the variables are dynamic maps) but reads a member its variable never has
// can never match through that read, so a Deny rule built on it never denies: a warning, not a problem.
it('warns about a rule reading a member mcp or request never has, and passes the object', () => {
  const r = validateText(policy('mcp.tools == "get-env" || request.header["x"] == "1"'), 'p.yaml');
  expect(r.problems).toEqual([]);
  expect(r.warnings.map((w) => [w.object, w.path, w.message.split(',')[0]])).toEqual([
    ['GwPolicy default/p', 'spec.traffic.authorization.policy.matchExpressions[0]', 'reads mcp.tools'],
    ['GwPolicy default/p', 'spec.traffic.authorization.policy.matchExpressions[0]', 'reads request.header'],
  ]);
});

it('does not warn about documented members, or about jwt claims (free-form)', () => {
  const r = validateText(policy('mcp.tool == "add" && request.headers["x"] == "1" && jwt.anything == "a"'), 'p.yaml');
  expect(r.warnings).toEqual([]);
});

// Issue 40: global rate-limit descriptor entries are compiled as the proxy compiles them.
it('reports a global rate-limit descriptor entry naming a variable the stage does not bind, and passes jwt and apiKey', () => {
  const limit = (expr: string) => `apiVersion: gw.dev/v1alpha1
kind: GwPolicy
metadata: {name: p, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  traffic:
    rateLimit:
      global:
        url: grpc://ratelimit.example:8081
        domain: d
        descriptors: [{entries: [{name: user, expression: jwt.sub}, {name: x, expression: '${expr}'}]}]
`;
  expect(validateText(limit('response.code'), 'p.yaml').problems).toEqual([
    {
      source: 'p.yaml',
      object: 'GwPolicy default/p',
      path: 'spec.traffic.rateLimit.global.descriptors[0].entries[1].expression',
      message: 'names unknown variable "response"; known variables are request, jwt, apiKey, extauthz, llmRequest, llm',
    },
  ]);
  expect(validateText(limit('apiKey.group'), 'p.yaml').problems).toEqual([]);
  // LLM routes read the body before the call (a forwarded route refuses these on status, by path).
  expect(validateText(limit('llmRequest.model'), 'p.yaml').problems).toEqual([]);
  expect(validateText(limit('llm.model.name'), 'p.yaml').problems).toEqual([]);
  // A whole map is never text: its descriptor would never be sent, so the limit would be skipped.
  expect(validateText(limit('llm.model'), 'p.yaml').problems.map((p) => p.message)).toEqual([
    expect.stringMatching(/^yields a map, never a text value/),
  ]);
});
