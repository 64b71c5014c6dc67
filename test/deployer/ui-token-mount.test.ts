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

/** The workload GwParameters `ui` renders, and the admin settings the proxy resolves from its bootstrap file. */
function rendered(ui: Record<string, unknown>): { pod: Pod; admin: ReturnType<typeof resolveXdsOptions>['admin'] } {
  const { objects } = renderGatewayWorkload({
    gateway,
    gatewayParameters: { metadata: { name: 'p', namespace: 'team-a' }, spec: { ui } },
    options: { controllerService: { name: 'gw', namespace: 'gw-system' }, proxyImage: { repository: 'proxy' } },
  });
  const configMap = objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
  const pod = (objects.find((o) => o.kind === 'Deployment') as unknown as { spec: { template: { spec: Pod } } }).spec
    .template.spec;
  const dir = mkdtempSync(join(tmpdir(), 'gw-ui-boot-'));
  try {
    const file = join(dir, 'config.json');
    writeFileSync(file, configMap.data['config.json'] ?? '');
    return { pod, admin: resolveXdsOptions({ config: file }, {}).admin };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('GwParameters ui', () => {
  it('puts the UI address and the mounted token Secret file in the bootstrap file the proxy reads', () => {
    const { pod, admin } = rendered({ address: '0.0.0.0:15000', tokenSecret: { name: 'ui-admin', key: 'bearer' } });
    expect(admin).toEqual({ address: '0.0.0.0:15000', tokenFile: '/var/run/secrets/gw/ui-token/bearer' });
    const volume = pod.volumes.find((v) => v.name === 'ui-token');
    expect(volume?.secret).toEqual({ secretName: 'ui-admin', items: [{ key: 'bearer', path: 'bearer' }] });
    const mount = pod.containers.find((c) => c.name === 'proxy')?.volumeMounts.find((m) => m.name === 'ui-token');
    expect(`${mount?.mountPath}/bearer`).toBe(admin?.tokenFile);
  });

  it('applies tokenSecret without an address on the default loopback address, and that UI is then asked for', () => {
    const { pod, admin } = rendered({ tokenSecret: { name: 'ui-admin' } });
    // Not optional: the token asks for the UI, so a UI that cannot start stops the start rather than go missing.
    expect(admin).toEqual({ address: '127.0.0.1:15000', tokenFile: '/var/run/secrets/gw/ui-token/token' });
    expect(pod.volumes.find((v) => v.name === 'ui-token')?.secret?.secretName).toBe('ui-admin');
  });

  it('leaves the default UI optional when GwParameters ui sets neither address nor tokenSecret', () => {
    expect(rendered({}).admin).toEqual({ address: '127.0.0.1:15000', optional: true });
  });
});
