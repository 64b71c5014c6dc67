// What xDS auth relies on: a projected-style token from TokenRequest, checked with TokenReview.
import { AuthenticationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { e2eKubeConfig, useNamespace } from './support/kube.js';

describe('service account tokens', () => {
  const namespace = useNamespace('tokens');
  const audience = 'gw-xds';

  async function requestToken(serviceAccount: string, audiences: string[]): Promise<string> {
    const core = e2eKubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace: namespace(), body: { metadata: { name: serviceAccount } } });
    const tr = await core.createNamespacedServiceAccountToken({
      name: serviceAccount,
      namespace: namespace(),
      body: { spec: { audiences, expirationSeconds: 600 } },
    });
    const token = tr.status?.token;
    if (!token) throw new Error('TokenRequest returned no token');
    return token;
  }

  const review = (token: string, audiences: string[]) =>
    e2eKubeConfig()
      .makeApiClient(AuthenticationV1Api)
      .createTokenReview({ body: { spec: { token, audiences } } });

  it('TokenReview authenticates a TokenRequest token as its service account', async () => {
    const token = await requestToken('proxy', [audience]);
    const res = await review(token, [audience]);
    expect(res.status?.authenticated).toBe(true);
    expect(res.status?.user?.username).toBe(`system:serviceaccount:${namespace()}:proxy`);
    expect(res.status?.user?.groups).toContain(`system:serviceaccounts:${namespace()}`);
    expect(res.status?.audiences).toEqual([audience]);
  });

  it('TokenReview rejects the token for another audience and a tampered token', async () => {
    const token = await requestToken('other', [audience]);
    expect((await review(token, ['someone-else'])).status?.authenticated).toBeFalsy();
    const [header, payload, signature] = token.split('.');
    const tampered = `${header}.${payload}.${signature!.slice(0, -4)}AAAA`;
    expect((await review(tampered, [audience])).status?.authenticated).toBeFalsy();
  });
});
