import { describe, expect, it } from 'vitest';
import {
  GATEWAY_LABEL,
  renderGatewayWorkload,
  sessionKeySecret,
  sessionKeySecretName,
} from '../../src/deployer/render.js';
import type { GatewayInput } from '../../src/deployer/render.js';
import { parseKey } from '../../src/proxy/mcp/session-keys.js';

const gateway: GatewayInput = {
  metadata: { name: 'edge', namespace: 'team-a', uid: 'u-1' },
  spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
};

describe('session key Secret', () => {
  it('holds the key as base64 text (what SESSION_KEY carries) under the key the pod template references', () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => i);
    const secret = sessionKeySecret(gateway, key);
    expect(secret.metadata.name).toBe(sessionKeySecretName(gateway));
    // The kubelet decodes `data` once; the env var gets printable text the proxy parses back to the 32 bytes.
    const envValue = Buffer.from(String((secret.data as Record<string, string>)['session-key']), 'base64').toString();
    expect(envValue).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(parseKey(envValue, 'SESSION_KEY')).toEqual(Buffer.from(key));
    expect((secret.metadata.labels as Record<string, string>)[GATEWAY_LABEL]).toBe('edge');
    expect(secret.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Gateway', uid: 'u-1', controller: true }),
    ]);

    const { objects } = renderGatewayWorkload({
      gateway,
      options: { controllerService: { name: 'gw', namespace: 'gw-system' }, proxyImage: { repository: 'proxy' } },
    });
    const deployment = objects.find((o) => o.kind === 'Deployment');
    expect(JSON.stringify(deployment)).toContain(`{"key":"session-key","name":"${secret.metadata.name}"}`);
  });

  it('rolls pods when the key checksum changes and not otherwise', () => {
    const render = (sessionKeyChecksum?: string) =>
      renderGatewayWorkload({
        gateway,
        sessionKeyChecksum,
        options: { controllerService: { name: 'gw', namespace: 'gw-system' }, proxyImage: { repository: 'proxy' } },
      }).objects.find((o) => o.kind === 'Deployment');
    expect(render('a')).toEqual(render('a'));
    expect(render('a')).not.toEqual(render('b'));
  });
});
