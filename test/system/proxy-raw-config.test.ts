// GwParameters `rawConfig` end to end: the deployer renders it into the proxy's bootstrap ConfigMap (typed
// fields win), `gw proxy` reads that file's limits like its flags (flags and environment win), and a key
// the proxy has no setting for is refused on the GwParameters status naming its field path.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveXdsOptions } from '../../src/cli/proxy-xds.js';
import { parseManifests } from '../../src/controller/local/manifests.js';
import { renderGatewayWorkload, type RenderInput } from '../../src/deployer/render.js';
import { translateAll } from '../../src/translate/state.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';

const gateway = {
  metadata: { name: 'edge', namespace: 'team-a', uid: '6f1c2a8e-0b1d-4c55-9a43-1f2e3d4c5b6a' },
  spec: { gatewayClassName: 'gw', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
} as RenderInput['gateway'];

/** The bootstrap file the deployer renders for these gateway-level parameters, as the pod would mount it. */
function renderedConfig(spec: Record<string, unknown>): string {
  const out = renderGatewayWorkload({
    gateway,
    gatewayParameters: { metadata: { name: 'p', namespace: 'team-a' }, spec },
    options: {
      controllerService: { name: 'gw', namespace: 'gw-system' },
      proxyImage: { registry: 'r', repository: 'proxy', tag: 'v1' },
    },
  } as RenderInput);
  const cm = out.objects.find((o) => o.kind === 'ConfigMap') as { data: Record<string, string> } | undefined;
  const text = cm?.data['config.json'];
  if (!text) throw new Error(`no config.json rendered: ${JSON.stringify(out.problems)}`);
  return text;
}

describe('GwParameters rawConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-raw-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (text: string): string => {
    const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, text);
    return file;
  };

  it('reaches the proxy: the limits it carries are applied like the flags of the same names', () => {
    const file = write(
      renderedConfig({
        rawConfig: {
          limits: { maxSessions: 50, requestTimeout: '30s', maxConnectionsPerSource: 0, sessionIdleTimeout: '5m' },
        },
      }),
    );
    expect(resolveXdsOptions({ config: file, 'pod-name': 'p' }, {}).limits).toEqual({
      maxSessions: 50,
      requestTimeoutMs: 30_000,
      maxConnectionsPerSource: 0,
      sessionIdleMs: 300_000,
      drainMinMs: 5000,
    });
  });

  it('lets typed fields win over the same keys in rawConfig', () => {
    const config = JSON.parse(
      renderedConfig({
        logging: { level: 'warn' },
        shutdown: { minDelay: '7s' },
        rawConfig: { logging: { level: 'trace', format: 'json' }, shutdown: { minDelay: '1s', maxDelay: '9s' } },
      }),
    ) as { logging: unknown; shutdown: unknown };
    expect(config.logging).toEqual({ level: 'warn', format: 'json' });
    expect(config.shutdown).toEqual({ minDelay: '7s', maxDelay: '9s' });
    const file = write(JSON.stringify(config));
    expect(resolveXdsOptions({ config: file, 'pod-name': 'p' }, {}).limits).toEqual({
      drainMinMs: 7000,
      drainMaxMs: 9000,
    });
  });

  it('names the file and key of a limit the proxy cannot read, and never guesses', () => {
    const base = { gateway: 'ns/gw', xds: { address: 'a:1' } };
    const unknown = write(JSON.stringify({ ...base, limits: { maxSesions: 1 } }));
    expect(() => resolveXdsOptions({ config: unknown, 'pod-name': 'p' }, {})).toThrow(
      `--config ${unknown}: limits.maxSesions is not a proxy limit`,
    );
    const zero = write(JSON.stringify({ ...base, limits: { headerTimeout: '0' } }));
    expect(() => resolveXdsOptions({ config: zero, 'pod-name': 'p' }, {})).toThrow(
      `--config ${zero}: limits.headerTimeout: must be above 0`,
    );
  });

  it('refuses a rawConfig key the proxy has no setting for on the GwParameters status, naming its path', () => {
    const store = createStore();
    const manifests = `apiVersion: gw.dev/v1alpha1
kind: GwParameters
metadata: {name: params, namespace: default, generation: 1}
spec:
  rawConfig: {limits: {maxSesions: 10}, tracing: {sampling: 0.5}}
`;
    for (const { kind, obj } of parseManifests(manifests, 'test.yaml').objects)
      putObject(store, kind, obj, 'test.yaml');
    const state = translateAll(store, { controllerName: 'gw.dev/gateway-controller', now: '2026-01-01T00:00:00Z' });
    const status = state.statuses.get('GwParameters/default/params') as {
      conditions: { type: string; status: string; reason: string; message: string }[];
    };
    const accepted = status.conditions.find((c) => c.type === 'Accepted');
    expect(accepted).toMatchObject({ status: 'False', reason: 'Invalid' });
    expect(accepted?.message).toContain('spec.rawConfig.limits.maxSesions');
    expect(accepted?.message).toContain('spec.rawConfig.tracing');
  });
});
