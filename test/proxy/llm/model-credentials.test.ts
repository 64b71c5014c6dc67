// Which credential a GwModel provider is called with: the one the controller resolved (IR
// ModelProvider.credential) wins; snapshots from controllers that did not resolve one still work with an
// inline key or passthrough in policiesJson; anything that would send no key, or the key elsewhere, is refused.
import { describe, expect, it } from 'vitest';
import type { Model__Output as IrModel } from '../../../src/ir/gen/gw/ir/v1/Model.js';
import type { AiCredential__Output } from '../../../src/ir/gen/gw/ir/v1/AiCredential.js';
import type { Route } from '../../../src/ir/types.js';
import { chooseModel, modelTableOf, type ModelChoice } from '../../../src/proxy/llm/model-routing.js';

const route = { name: 'HTTPRoute/default/llm/chat', listeners: [] } as unknown as Route;

function choose(policies: Record<string, unknown>, credential: AiCredential__Output | null = null): ModelChoice {
  const model: IrModel = {
    name: 'GwModel/default/m', parents: [route.name], match: { kind: 'exact', exact: 'm' }, visibility: 'PUBLIC', target: 'provider',
    provider: { provider: 'OpenAI', baseUrl: 'http://127.0.0.1:9/v1', settingsJson: '{}', policiesJson: JSON.stringify(policies), credential },
  };
  const table = modelTableOf(route, [model]);
  if (!table) throw new Error('model not attached');
  return chooseModel(table, 'm', {}, () => 0);
}

const credentialOf = (c: ModelChoice) => (c.ok ? c.groups[0]?.[0]?.edge?.credential : c);

describe('GwModel provider credentials', () => {
  it('uses the credential the controller resolved over the policies', () => {
    const resolved: AiCredential__Output = { kind: 'key', key: 'sk-resolved', source: 'Secret default/k key Authorization' };
    expect(credentialOf(choose({ auth: { secretRef: { name: 'k' } } }, resolved))).toEqual(resolved);
    expect(credentialOf(choose({ auth: { key: 'sk-inline' } }, resolved))).toEqual(resolved);
  });

  it('reads an inline key or passthrough from the policies of a snapshot without a resolved credential', () => {
    expect(credentialOf(choose({ auth: { key: 'sk-inline' } }))).toMatchObject({ kind: 'key', key: 'sk-inline' });
    expect(credentialOf(choose({ auth: { passthrough: {} } }))).toMatchObject({ kind: 'passthrough', passthrough: true });
    expect(credentialOf(choose({}))).toBeNull();
  });

  it('refuses with 500 a Secret reference the controller could not resolve', () => {
    expect(choose({ auth: { secretRef: { name: 'gone' } } })).toMatchObject({ ok: false, error: 'credential_missing' });
  });

  it('refuses with 500 a cloud credential the controller could not resolve, and uses one it resolved', () => {
    expect(choose({ auth: { aws: { assumeRole: { roleArn: 'arn:aws:iam::1:role/r' } } } })).toMatchObject({ ok: false, error: 'credential_missing', message: expect.stringContaining('policies.auth.aws') });
    const aws: AiCredential__Output = { kind: 'aws', aws: { accessKeyId: '', secretAccessKey: '', sessionToken: '', region: '', serviceName: '' }, source: 'GwModel default/m' };
    expect(credentialOf(choose({ auth: { aws: {} } }, aws))).toEqual(aws);
  });

  it('refuses with 501 auth kinds and credential locations it does not apply', () => {
    const resolved: AiCredential__Output = { kind: 'key', key: 'sk-resolved', source: 'GwModel default/m' };
    expect(choose({ auth: { oauthTokenExchange: { url: 'https://sts.example' } } })).toMatchObject({ ok: false, error: 'provider_not_supported', message: expect.stringContaining('policies.auth.oauthTokenExchange') });
    expect(choose({ auth: { location: { header: { name: 'x-key' } } } }, resolved)).toMatchObject({ ok: false, error: 'provider_not_supported', message: expect.stringContaining('policies.auth.location') });
  });
});
