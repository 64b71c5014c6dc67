// GwParameters `modelCatalog` from the deployer to the proxy: every file the bootstrap file lists (and
// `gw proxy --config` hands to the catalog store) is the key of a ConfigMap volume mounted at that path,
// so the proxy reads exactly what the kubelet writes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { renderGatewayWorkload } from '../../src/deployer/render.js';
import type { GatewayInput } from '../../src/deployer/render.js';
import { resolveXdsOptions } from '../../src/cli/proxy-xds.js';
import { ModelCatalogStore } from '../../src/proxy/llm/catalog-store.js';

const gateway: GatewayInput = {
  metadata: { name: 'edge', namespace: 'team-a', uid: 'u-1' },
  spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
};

interface Volume {
  name: string;
  configMap?: { name: string; items?: { key: string; path: string }[] };
}
interface Mount {
  name: string;
  mountPath: string;
}

describe('model catalog mounts and the proxy', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('lists in config.json exactly the mounted ConfigMap keys, and the proxy loads them from there', () => {
    const { objects } = renderGatewayWorkload({
      gateway,
      gatewayParameters: {
        metadata: { name: 'p', namespace: 'team-a' },
        spec: {
          modelCatalog: {
            sources: [{ configMap: { name: 'models' } }, { configMap: { name: 'more', key: 'v.yaml' } }],
          },
        },
      },
      options: { controllerService: { name: 'gw', namespace: 'gw-system' }, proxyImage: { repository: 'proxy' } },
    });
    const configMap = objects.find((o) => o.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    root = mkdtempSync(join(tmpdir(), 'gw-mounts-'));
    const configFile = join(root, 'config.json');
    writeFileSync(configFile, configMap.data['config.json'] ?? '');
    // What `gw proxy --config` resolves (the container's args name the same file).
    const files = resolveXdsOptions({ config: configFile }, {}).modelCatalogFiles ?? [];
    expect(files).toHaveLength(2);

    const pod = (
      objects.find((o) => o.kind === 'Deployment') as unknown as {
        spec: { template: { spec: { volumes: Volume[]; containers: { name: string; volumeMounts: Mount[] }[] } } };
      }
    ).spec.template.spec;
    const mounts = pod.containers.find((c) => c.name === 'proxy')?.volumeMounts ?? [];
    const contents: Record<string, string> = {
      models: JSON.stringify({ models: [{ name: 'gpt-4o', provider: 'OpenAI' }] }),
      more: 'models: [{name: claude-sonnet-4, provider: Anthropic}]',
    };
    // Lay the volumes out under `root` as the kubelet would, then read every listed file from there.
    for (const file of files) {
      const mount = mounts.find((m) => m.mountPath === dirname(file));
      const volume = pod.volumes.find((v) => v.name === mount?.name);
      const item = volume?.configMap?.items?.find((i) => i.path === relative(dirname(file), file));
      expect(item, `${file} is not a mounted ConfigMap key`).toBeDefined();
      mkdirSync(join(root, dirname(file)), { recursive: true });
      writeFileSync(join(root, file), contents[volume?.configMap?.name ?? ''] ?? '');
    }
    const store = new ModelCatalogStore({
      files: files.map((f) => join(root as string, f)),
      log: pino({ level: 'silent' }),
      watch: false,
    });
    expect(store.current().models.map((m) => m.name)).toEqual(['gpt-4o', 'claude-sonnet-4']);
  });
});
