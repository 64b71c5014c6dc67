// The coverage table cannot hide a setting the proxy ignores: every environment variable and mounted
// directory the deployer renders into the proxy container, with every GwParameters setting that renders
// one turned on, is read by the proxy: named in its code (src/proxy, the `gw proxy` CLI) or, for a mounted
// file, named by the bootstrap config.json the proxy reads. A new one that nothing reads fails here until
// the proxy reads it or the GwParameters field behind it is refused.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderGatewayWorkload, type GatewayInput } from '../../src/deployer/render.js';

const root = join(import.meta.dirname, '..', '..');

/** Rendered for other tools, not for the proxy: each says who reads it instead. */
const READ_ELSEWHERE: Record<string, string> = {
  // The upstream agentgateway image's log variable, kept so that image can run from this Deployment.
  RUST_LOG: 'compatibility with the agentgateway image; gw proxy reads GW_LOG_LEVEL',
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const proxyCode = [
  ...sources(join(root, 'src', 'proxy')),
  ...sources(join(root, 'src', 'cli')).filter((f) => /[/\\]proxy[^/\\]*\.ts$/.test(f)),
]
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

const gateway: GatewayInput = {
  metadata: { name: 'edge', namespace: 'team-a', uid: 'u-1' },
  spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
};

interface Container {
  name: string;
  env: { name: string }[];
  volumeMounts: { mountPath: string }[];
}

describe('what the deployer renders for the proxy is read by the proxy', () => {
  const { objects } = renderGatewayWorkload({
    gateway,
    gatewayParameters: {
      metadata: { name: 'p', namespace: 'team-a' },
      spec: {
        istio: {
          enabled: true,
          caAddress: 'istiod.istio-system.svc:15012',
          trustDomain: 'cluster.local',
          additionalTrustDomains: ['old.local'],
          clusterId: 'c1',
          network: 'n1',
        },
        spiffe: { socketPath: '/run/spire/agent.sock' },
        modelCatalog: { sources: [{ configMap: { name: 'models' } }] },
        shutdown: { minDelay: '1s', maxDelay: '5s' },
      },
    },
    options: { controllerService: { name: 'gw', namespace: 'gw-system' }, proxyImage: { repository: 'proxy' } },
  });
  const configMap = objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
  const bootstrap = configMap.data['config.json'] ?? '';
  const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
    spec: { template: { spec: { containers: Container[] } } };
  };
  const proxy = deployment.spec.template.spec.containers.find((c) => c.name === 'proxy') as Container;

  it('renders the identity settings this test is about', () => {
    const names = proxy.env.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['SPIFFE_ENDPOINT_SOCKET', 'GW_ISTIO_ENABLED', 'CA_ADDR']));
  });

  it('reads every environment variable it is given', () => {
    const unread = proxy.env
      .map((e) => e.name)
      .filter((name) => !READ_ELSEWHERE[name] && !new RegExp(`\\b${name}\\b`).test(proxyCode));
    expect(unread).toEqual([]);
  });

  it('reads every directory mounted into it, by a path in its code or in its bootstrap file', () => {
    const unread = proxy.volumeMounts
      .map((m) => m.mountPath)
      .filter((dir) => !proxyCode.includes(dir) && !bootstrap.includes(dir))
      // The proxy's code may name a file under the mount (for example /var/run/secrets/tokens/istio-token).
      .filter((dir) => !proxyCode.includes(`${dir}/`));
    expect(unread).toEqual([]);
  });
});
