// GwParameters `ui` from the deployer to the proxy: the bootstrap file names the UI address and the token
// file, and that file is the key of the Secret volume mounted at that path.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderGatewayWorkload, type GatewayInput } from '../../src/deployer/render.js';
import { resolveXdsOptions } from '../../src/cli/proxy-xds.js';

const gateway: GatewayInput = {
  metadata: { name: 'edge', namespace: 'team-a', uid: 'u-1' },
  spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
};

interface Pod {
  volumes: { name: string; secret?: { secretName: string; items: { key: string; path: string }[] } }[];
  containers: { name: string; volumeMounts: { name: string; mountPath: string }[] }[];
}

describe('GwParameters ui', () => {
  it('puts the UI address and the mounted token Secret file in the bootstrap file the proxy reads', () => {
    const { objects } = renderGatewayWorkload({
      gateway,
      gatewayParameters: {
        metadata: { name: 'p', namespace: 'team-a' },
        spec: { ui: { address: '0.0.0.0:15000', tokenSecret: { name: 'ui-admin', key: 'bearer' } } },
      },
      options: { controllerService: { name: 'gw', namespace: 'gw-system' }, proxyImage: { repository: 'proxy' } },
    });
    const configMap = objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    const dir = mkdtempSync(join(tmpdir(), 'gw-ui-boot-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(file, configMap.data['config.json'] ?? '');
      const admin = resolveXdsOptions({ config: file }, {}).admin;
      expect(admin).toEqual({ address: '0.0.0.0:15000', tokenFile: '/var/run/secrets/gw/ui-token/bearer' });
      const pod = (objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { spec: Pod } } })
        .spec.template.spec;
      const volume = pod.volumes.find((v) => v.name === 'ui-token');
      expect(volume?.secret).toEqual({ secretName: 'ui-admin', items: [{ key: 'bearer', path: 'bearer' }] });
      const mount = pod.containers.find((c) => c.name === 'proxy')?.volumeMounts.find((m) => m.name === 'ui-token');
      expect(`${mount?.mountPath}/bearer`).toBe(admin?.tokenFile);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
