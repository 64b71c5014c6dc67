// The xDS glue against a real API server: projected-style tokens from TokenRequest are checked by
// TokenReview for the gw-xds audience, a proxy is authorised only for its own Gateway, and the xDS CA
// lives in one Secret that racing replicas agree on.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createCa } from '../../../src/xds/ca.js';
import { KubeClient } from '../../../src/controller/kube-client.js';
import {
  authorizeGatewayServiceAccount,
  secretCaStore,
  tokenReviewAuthenticator,
} from '../../../src/controller/xds-glue.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { serviceAccountToken } from './support/objects.js';

describe('xDS glue', () => {
  const ns = useNamespace('ctl-xds');
  const kc = e2eKubeConfig();
  const client = new KubeClient(kc);
  afterAll(() => client.close());

  const token = (sa: string, audience: string) => serviceAccountToken(kc, ns(), sa, audience);

  it('authenticates a ServiceAccount token for the gw-xds audience and authorises only that Gateway', async () => {
    const authenticate = tokenReviewAuthenticator(client);
    const identity = await authenticate(await token('edge', 'gw-xds'));
    expect(identity).toEqual({ namespace: ns(), serviceAccount: 'edge' });
    expect(authorizeGatewayServiceAccount(identity!, `${ns()}/edge`)).toBe(true);
    expect(authorizeGatewayServiceAccount(identity!, `${ns()}/other`)).toBe(false);
    expect(authorizeGatewayServiceAccount(identity!, `elsewhere/edge`)).toBe(false);
  });

  it('rejects a token issued for another audience and a forged token', async () => {
    const authenticate = tokenReviewAuthenticator(client);
    expect(await authenticate(await token('edge', 'https://kubernetes.default.svc'))).toBeNull();
    expect(
      await authenticate(
        `eyJhbGciOiJSUzI1NiJ9.${randomBytes(32).toString('base64url')}.${randomBytes(64).toString('base64url')}`,
      ),
    ).toBeNull();
  });

  it('keeps one CA in a Secret: the first put wins and later puts return it', async () => {
    const store = secretCaStore(client, ns());
    expect(await store.get()).toBeUndefined();
    const [a, b] = await Promise.all([createCa(), createCa()]);
    const first = await store.put(a);
    const second = await store.put(b);
    expect(second).toEqual(first);
    expect(await secretCaStore(client, ns()).get()).toEqual(first);
  });
});
