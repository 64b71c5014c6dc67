import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseControllerFlags, run } from '../../src/cli/controller.js';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('gw controller flags', () => {
  it('uses the documented defaults', () => {
    const c = parseControllerFlags([]);
    expect(c).toMatchObject({
      controllerName: 'gw.dev/gateway-controller',
      gatewayClassName: 'gw',
      xdsMode: 'tls',
      xdsPort: 9978,
      healthPort: 9093,
      metricsPort: 9092,
      enableModels: false,
      logFormat: 'json',
    });
  });

  it('reads GW_* environment variables and lets flags win', () => {
    process.env.GW_CONTROLLER_NAME = 'env/controller';
    process.env.GW_ENABLE_MODELS = 'true';
    process.env.GW_XDS_PORT = '1234';
    const c = parseControllerFlags([
      '--xds-port=4321',
      '--discovery-namespace-selectors',
      '[{"matchLabels":{"a":"b"}}]',
    ]);
    expect(c).toMatchObject({
      controllerName: 'env/controller',
      enableModels: true,
      xdsPort: 4321,
      discoveryNamespaceSelectors: [{ matchLabels: { a: 'b' } }],
    });
  });

  it('serves the fleet UI on loopback by default, and off loopback only with a token file', () => {
    expect(parseControllerFlags([]).admin).toEqual({ address: '127.0.0.1:9094', optional: true });
    expect(parseControllerFlags(['--admin-address', 'off']).admin).toBeUndefined();
    // A token file without an address is applied on the default address, which is then asked for (not optional).
    expect(parseControllerFlags(['--admin-token-file', '/t']).admin).toEqual({
      address: '127.0.0.1:9094',
      tokenFile: '/t',
    });
    expect(() => parseControllerFlags(['--admin-address', 'off', '--admin-token-file', '/t'])).toThrow(
      '--admin-token-file is given with --admin-address off',
    );
    expect(parseControllerFlags(['--admin-address', '0.0.0.0:9094', '--admin-token-file', '/t']).admin).toEqual({
      address: '0.0.0.0:9094',
      tokenFile: '/t',
    });
    expect(() => parseControllerFlags(['--admin-address', '0.0.0.0:9094'])).toThrow(
      '--admin-address 0.0.0.0:9094: off loopback the fleet UI needs --admin-token-file',
    );
    expect(() => parseControllerFlags(['--admin-address', 'nowhere'])).toThrow(
      '--admin-address must look like host:port or be off, got "nowhere"',
    );
  });

  it('rejects bad values with a sentence naming the flag', () => {
    expect(() => parseControllerFlags(['--xds-port', '65536'])).toThrow(
      '--xds-port must be between 0 and 65535, got "65536"',
    );
    expect(() => parseControllerFlags(['--xds-mode', 'quic'])).toThrow('--xds-mode must be plaintext, tls or either');
    expect(() => parseControllerFlags(['--discovery-namespace-selectors', '{'])).toThrow(
      '--discovery-namespace-selectors must be JSON',
    );
    expect(() => parseControllerFlags(['--bogus'])).toThrow('unknown flag --bogus');
    expect(() => parseControllerFlags(['--status-dir', '/x'])).toThrow('--status-dir is only for local mode');
    expect(() => parseControllerFlags(['--otlp-traces-url', 'grpc://collector:4317'])).toThrow(
      '--otlp-traces-url must be an http(s) URL (OTLP/HTTP), got "grpc://collector:4317"',
    );
  });

  it('runs local mode once and writes status files', async () => {
    const m = mkdtempSync(join(tmpdir(), 'gw-cli-m-')),
      s = mkdtempSync(join(tmpdir(), 'gw-cli-s-'));
    try {
      writeFileSync(
        join(m, 'gw.yaml'),
        'kind: Gateway\nmetadata: {name: web, namespace: default}\nspec: {gatewayClassName: gw, listeners: [{name: http, port: 8080, protocol: HTTP}]}\n',
      );
      expect(await run(['--manifests', m, '--status-dir', s, '--once', '--log-level', 'silent'])).toBe(0);
      expect(existsSync(join(s, 'Gateway/default/web.yaml'))).toBe(true);
      expect(await run(['--manifests', join(m, 'missing'), '--once', '--log-level', 'silent'])).toBe(2);
    } finally {
      rmSync(m, { recursive: true, force: true });
      rmSync(s, { recursive: true, force: true });
    }
  });
});

describe('gw controller istio flags', () => {
  it("defaults the CA address to Istio's own, istiod in istio-system, when no istio flag is given", () => {
    expect(parseControllerFlags([]).istio).toEqual({ caAddress: 'istiod.istio-system.svc:15012' });
    expect(parseControllerFlags(['--istio-ca-address', 'ca.mesh:15012']).istio).toEqual({ caAddress: 'ca.mesh:15012' });
  });

  it('builds the default CA address from istiod namespace and revision', () => {
    expect(parseControllerFlags(['--istio-revision', '1-27']).istio).toEqual({
      caAddress: 'istiod-1-27.istio-system.svc:15012',
    });
    expect(parseControllerFlags(['--istio-namespace', 'mesh', '--istio-cluster-id', 'c1']).istio).toEqual({
      caAddress: 'istiod.mesh.svc:15012',
      clusterId: 'c1',
    });
  });

  it('turns istio on by default for the built-in class under --istio-auto-enabled, named by --gateway-class-name', () => {
    expect(parseControllerFlags(['--istio-auto-enabled']).istio.autoEnabledClass).toBe('gw');
    expect(
      parseControllerFlags(['--istio-auto-enabled', '--gateway-class-name', 'gw-mesh']).istio.autoEnabledClass,
    ).toBe('gw-mesh');
    expect(parseControllerFlags([]).istio.autoEnabledClass).toBeUndefined();
  });

  it.each([
    [['--istio-network', 'net-1'], '--istio-network (chart istio.network) is not supported'],
    [['--istio-ca-address', 'a:1', '--istio-namespace', 'ns'], '--istio-namespace names'],
    [['--istio-enabled'], 'unknown flag --istio-enabled'],
  ])('refuses %j at start with a message naming it (never accepted and dropped)', (argv, message) => {
    expect(() => parseControllerFlags(argv)).toThrow(message);
  });
});
