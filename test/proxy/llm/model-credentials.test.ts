// Which credential a GwModel provider is called with, and how a model is refused: the proxy acts only on
// the IR the translator wrote (ModelProvider.credential, credential_problem, Model.refusals) and never
// re-reads the GwModel's policies (issue 14).
import { describe, expect, it } from 'vitest';
import type { Model__Output as IrModel } from '../../../src/ir/gen/gw/ir/v1/Model.js';
import type { AiCredential__Output } from '../../../src/ir/gen/gw/ir/v1/AiCredential.js';
import type { Refusal__Output } from '../../../src/ir/gen/gw/ir/v1/Refusal.js';
import type { Route } from '../../../src/ir/types.js';
import { chooseModel, modelTableOf, type ModelChoice } from '../../../src/proxy/llm/model-routing.js';

const route = { name: 'HTTPRoute/default/llm/chat', listeners: [] } as unknown as Route;

function choose(
  over: {
    credential?: AiCredential__Output;
    credentialProblem?: string;
    refusals?: Refusal__Output[];
    policiesJson?: string;
  } = {},
): ModelChoice {
  const model: IrModel = {
    name: 'GwModel/default/m',
    parents: [route.name],
    match: { kind: 'exact', exact: 'm' },
    visibility: 'PUBLIC',
    target: 'provider',
    refusals: over.refusals ?? [],
    authorization: null,
    promptGuard: null,
    provider: {
      provider: 'OpenAI',
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      settings: null,
      settingsJson: '{}',
      policiesJson: over.policiesJson ?? '{}',
      transformations: [],
      finalTransformations: [],
      credential: over.credential ?? null,
      credentialProblem: over.credentialProblem ?? '',
      credentialLocation: null,
      extraCredentials: [],
      health: null,
      inferencePool: null,
      backendProblem: '',
      requestHeaders: null,
      tls: null,
      tunnel: null,
    },
  };
  const table = modelTableOf(route, [model]);
  if (!table) throw new Error('model not attached');
  return chooseModel(table, 'm', {}, () => 0);
}

const credentialOf = (c: ModelChoice) => (c.ok ? c.groups[0]?.[0]?.edge?.credential : c);
const refusal = (field: string, security: boolean): Refusal__Output => ({
  field,
  source: 'GwModel default/m',
  reason: 'not applied',
  security,
});

describe('GwModel provider credentials', () => {
  it('uses the credential the controller resolved', () => {
    const resolved: AiCredential__Output = {
      kind: 'key',
      key: 'sk-resolved',
      source: 'Secret default/k key Authorization',
    };
    expect(credentialOf(choose({ credential: resolved }))).toEqual(resolved);
  });

  it('does not read the policies JSON text: an inline key there is not a credential', () => {
    expect(credentialOf(choose({ policiesJson: JSON.stringify({ auth: { key: 'sk-inline' } }) }))).toBeNull();
  });

  it('refuses with credential_missing a credential the controller could not resolve', () => {
    expect(choose({ credentialProblem: 'Secret default/gone does not exist' })).toMatchObject({
      ok: false,
      error: 'credential_missing',
    });
  });

  it('refuses a model whose IR carries refusals: provider_not_supported, or policy_not_enforced when one concerns security', () => {
    expect(choose({ refusals: [refusal('spec.policies.headers', false)] })).toMatchObject({
      ok: false,
      error: 'provider_not_supported',
      message: expect.stringContaining('spec.policies.headers'),
    });
    const both = choose({
      refusals: [refusal('spec.policies.headers', false), refusal('spec.policies.promptGuard', true)],
    });
    expect(both).toMatchObject({
      ok: false,
      error: 'policy_not_enforced',
      message: expect.stringContaining('spec.policies.promptGuard'),
    });
  });
});
