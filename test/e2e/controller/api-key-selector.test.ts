// API keys chosen by labels against a real API server: the controller process watches Secrets, and a
// proxy it feeds over xDS accepts a key once its Secret carries the policy's labels and stops when the
// Secret is relabelled, without a restart of either. The policy's status names a key two labelled Secrets
// hold with different metadata (ApiKeysUnique), and that key is not accepted.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { installGwCrds } from '../support/gw-crds.js';
import { e2eKubeConfig, useNamespace } from '../support/kube.js';
import { eventually, startController, type ControllerProcess } from './support/controller-process.js';
import { apply, conditionsOf, gateway, gatewayClass, read, type Obj } from './support/objects.js';
import { freePort, startXdsProxy, type ProxyProcess } from './support/proxy-process.js';

const suffix = randomBytes(3).toString('hex');
const controllerName = `gw.dev/e2e-keys-${suffix}`;
const className = `gw-keys-${suffix}`;
const key = `sk-e2e-${randomBytes(8).toString('hex')}`;
const shared = `sk-shared-${randomBytes(8).toString('hex')}`;
const steady = `sk-steady-${randomBytes(8).toString('hex')}`;

describe('API keys chosen by labels, with the controller watching Secrets', () => {
  const ns = useNamespace('ctl-keys');
  const kc = e2eKubeConfig();
  let ctl: ControllerProcess | undefined;
  let proxy: ProxyProcess | undefined;
  let upstream: Server | undefined;
  let url: string;
  const status = async (k: string) => (await fetch(url, { headers: { authorization: `Bearer ${k}` } })).status;
  const secret = (name: string, labels: Record<string, string>, data: Record<string, string>): Obj => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns(), labels },
    stringData: data,
  });

  beforeAll(async () => {
    upstream = createServer((_req, res) => res.writeHead(200).end('ok'));
    await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (upstream.address() as AddressInfo).port;
    const listenerPort = await freePort();
    url = `http://127.0.0.1:${listenerPort}/keyed`;
    await installGwCrds(inject('kubeconfig'), kc);
    ctl = startController({
      kubeconfig: inject('kubeconfig'),
      identity: `keys-${suffix}`,
      controllerName,
      leaderElectionNamespace: ns(),
    });
    await ctl.ready();
    await apply(kc, gatewayClass(className, controllerName));
    await apply(kc, gateway(ns(), 'edge', className, [{ name: 'http', port: listenerPort, protocol: 'HTTP' }]));
    await apply(kc, {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwBackend',
      metadata: { name: 'up', namespace: ns() },
      spec: { static: { host: '127.0.0.1', port: upstreamPort } },
    });
    await apply(kc, {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'keyed', namespace: ns() },
      spec: {
        parentRefs: [{ name: 'edge' }],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/keyed' } }],
            backendRefs: [{ group: 'gw.dev', kind: 'GwBackend', name: 'up' }],
          },
        ],
      },
    });
    await apply(kc, {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwPolicy',
      metadata: { name: 'keys', namespace: ns() },
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'keyed' }],
        traffic: { apiKeyAuthentication: { secretSelector: { matchLabels: { 'gw.dev/keys': 'edge' } } } },
      },
    });
    await apply(
      kc,
      secret('anchor', { 'gw.dev/keys': 'edge' }, { a: JSON.stringify({ key: shared, metadata: { team: 'a' } }) }),
    );
    await apply(kc, secret('steady', { 'gw.dev/keys': 'edge' }, { s: steady }));
    await apply(kc, secret('client', { 'gw.dev/keys': 'other' }, { k: key }));
    proxy = await startXdsProxy(kc, ctl, ns(), 'edge', `proxy-keys-${suffix}`);
  }, 400_000);

  afterAll(async () => {
    await proxy?.stop();
    await ctl?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('accepts the key of a labelled Secret and not that of a Secret with other labels', async () => {
    await eventually(async () => ((await status(shared)) === 200 ? true : undefined), 60_000, 'labelled key accepted');
    expect(await status(key)).toBe(401);
  });

  it('accepts a key once its Secret is relabelled to match, and refuses it once relabelled away', async () => {
    await apply(kc, secret('client', { 'gw.dev/keys': 'edge' }, { k: key }));
    await eventually(async () => ((await status(key)) === 200 ? true : undefined), 60_000, 'relabelled key accepted');
    await apply(kc, secret('client', { 'gw.dev/keys': 'retired' }, { k: key }));
    await eventually(async () => ((await status(key)) === 401 ? true : undefined), 60_000, 'key refused again');
    expect(await status(shared)).toBe(200);
  });

  it('names a key two labelled Secrets hold with different metadata on the policy status and refuses it', async () => {
    await apply(
      kc,
      secret('rival', { 'gw.dev/keys': 'edge' }, { b: JSON.stringify({ key: shared, metadata: { team: 'b' } }) }),
    );
    const cond = await eventually(
      async () => {
        const p = await read(kc, 'gw.dev/v1alpha1', 'GwPolicy', 'keys', ns());
        const ancestors = (p.status?.ancestors ?? []) as { conditions?: unknown }[];
        return conditionsOf(ancestors[0]).find((c) => c.type === 'ApiKeysUnique');
      },
      60_000,
      'ApiKeysUnique on the policy',
    );
    expect(cond.status).toBe('False');
    expect(cond.message).toContain('Secret anchor key a, Secret rival key b hold the same key with different metadata');
    expect(cond.message).not.toContain(shared);
    await eventually(async () => ((await status(shared)) === 401 ? true : undefined), 60_000, 'duplicate refused');
    expect(await status(steady)).toBe(200);
  });
});
