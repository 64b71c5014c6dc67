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
      message: 'names unknown variable "foo"; known variables are jwt, request, mcp, apiKey',
    },
  ]);
});

it('accepts an authorization rule over jwt, request and mcp', () => {
  expect(validateText(policy('jwt.sub == "alice" && request.method == "GET"'), 'p.yaml').problems).toEqual([]);
});
