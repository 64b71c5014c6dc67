// `gw proxy` xDS-mode settings: flags, then the deployer's environment, then its bootstrap file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { resolveXdsOptions, wantsXds } from '../../src/cli/proxy-xds.js';
import { run } from '../../src/cli/proxy.js';

describe('gw proxy xDS settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-proxy-xds-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes flags over the environment the deployer renders', () => {
    const env = {
      GW_XDS_ADDRESS: 'gw.gw-system.svc:9978',
      GW_GATEWAY: 'default/web',
      POD_NAME: 'web-abc',
      GW_XDS_TOKEN_FILE: '/t',
    };
    expect(resolveXdsOptions({}, env)).toEqual({
      address: 'gw.gw-system.svc:9978',
      gateway: 'default/web',
      podName: 'web-abc',
      tokenFile: '/t',
      limits: { drainMinMs: 5000 },
      admin: { address: '127.0.0.1:15000', optional: true },
    });
    expect(resolveXdsOptions({ gateway: 'other/gw', 'xds-ca': '/ca.crt' }, env)).toMatchObject({
      gateway: 'other/gw',
      caFile: '/ca.crt',
    });
  });

  it('reads the bootstrap file the deployer mounts, with TLS only when it says so', () => {
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        gateway: 'ns/gw',
        xds: { address: 'gw.gw-system.svc:9978', tls: true, tokenFile: '/var/run/t', caFile: '/var/run/ca.crt' },
      }),
    );
    expect(resolveXdsOptions({ config: file, 'pod-name': 'p' }, {})).toEqual({
      address: 'gw.gw-system.svc:9978',
      gateway: 'ns/gw',
      podName: 'p',
      tokenFile: '/var/run/t',
      caFile: '/var/run/ca.crt',
      limits: { drainMinMs: 5000 },
      admin: { address: '127.0.0.1:15000', optional: true },
    });
    writeFileSync(file, JSON.stringify({ gateway: 'ns/gw', xds: { address: 'a:1', tls: false, caFile: '/unused' } }));
    expect(resolveXdsOptions({ config: file, 'pod-name': 'p' }, {})).not.toHaveProperty('caFile');
  });

  it('serves the web UI on loopback by default (optional: a taken default port only warns); flags over environment over the bootstrap file (GwParameters admin); off turns it off', () => {
    const file = join(dir, 'admin.json');
    writeFileSync(
      file,
      JSON.stringify({
        gateway: 'ns/gw',
        xds: { address: 'a:1' },
        admin: { address: '0.0.0.0:15000', tokenFile: '/ui/token' },
      }),
    );
    const base = { config: file, 'pod-name': 'p' };
    expect(resolveXdsOptions(base, {}).admin).toEqual({ address: '0.0.0.0:15000', tokenFile: '/ui/token' });
    expect(resolveXdsOptions(base, { GW_ADMIN_ADDRESS: '127.0.0.1:9' }).admin).toEqual({
      address: '127.0.0.1:9',
      tokenFile: '/ui/token',
    });
    expect(
      resolveXdsOptions({ ...base, 'admin-address': 'off' }, { GW_ADMIN_ADDRESS: '127.0.0.1:9' }),
    ).not.toHaveProperty('admin');
    // A token alone is applied on the default address, which it makes required.
    expect(resolveXdsOptions({ 'xds-address': 'a:1', gateway: 'ns/gw', 'admin-token-file': '/t' }, {}).admin).toEqual({
      address: '127.0.0.1:15000',
      tokenFile: '/t',
    });
    expect(() => resolveXdsOptions({ ...base, 'admin-address': 'nowhere' }, {})).toThrow(
      '--admin-address must look like host:port or be off, got "nowhere"',
    );
  });

  it("drains by the bootstrap file's shutdown delays (GwParameters shutdown), naming a bad one", () => {
    const file = join(dir, 'shutdown.json');
    writeFileSync(
      file,
      JSON.stringify({ gateway: 'ns/gw', xds: { address: 'a:1' }, shutdown: { minDelay: '15s', maxDelay: '1m30s' } }),
    );
    expect(resolveXdsOptions({ config: file, 'pod-name': 'p' }, {}).limits).toEqual({
      drainMinMs: 15_000,
      drainMaxMs: 90_000,
    });
    writeFileSync(file, JSON.stringify({ gateway: 'ns/gw', xds: { address: 'a:1' }, shutdown: { maxDelay: 'soon' } }));
    expect(() => resolveXdsOptions({ config: file, 'pod-name': 'p' }, {})).toThrow(
      'shutdown.maxDelay: "soon" is not a duration',
    );
  });

  it('rejects a missing address or a gateway that is not namespace/name, naming the flag', () => {
    expect(() => resolveXdsOptions({ gateway: 'a/b' }, {})).toThrow('--xds-address is required in xDS mode');
    expect(() => resolveXdsOptions({ 'xds-address': 'nohost' }, {})).toThrow(
      '--xds-address must look like host:port, got "nohost"',
    );
    expect(() => resolveXdsOptions({ 'xds-address': 'h:1', gateway: 'web' }, {})).toThrow(
      '--gateway must be namespace/name, got "web"',
    );
  });

  it('turns xDS mode on by flag, or by the environment only when no file is given', () => {
    expect(wantsXds({ gateway: 'a/b' }, {}, false)).toBe(true);
    expect(wantsXds({}, { GW_XDS_ADDRESS: 'h:1' }, false)).toBe(true);
    expect(wantsXds({}, { GW_XDS_ADDRESS: 'h:1' }, true)).toBe(false);
    expect(wantsXds({}, {}, false)).toBe(false);
  });

  it('refuses -f together with xDS flags', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await run(['-f', 'x.yaml', '--xds-address', 'h:1', '--gateway', 'a/b'])).toBe(2);
      expect(err.mock.calls[0]?.[0]).toContain('mutually exclusive');
    } finally {
      err.mockRestore();
    }
  });

  it('ends at start with one line naming the flag or file, exit 1, for a single process and a workers primary alike', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    const xds = ['--xds-address', '127.0.0.1:1', '--gateway', 'a/b', '--metrics-address', '127.0.0.1:0'];
    try {
      for (const workers of ['1', '2']) {
        err.mockClear();
        expect(await run([...xds, '--workers', workers, '--xds-ca', join(dir, 'no-ca.crt')])).toBe(1);
        expect(err.mock.calls).toEqual([[`gw proxy: --xds-ca ${join(dir, 'no-ca.crt')}: cannot be read (ENOENT)`]]);
        err.mockClear();
        expect(await run([...xds, '--workers', workers, '--xds-token-file', join(dir, 'no-token')])).toBe(1);
        expect(err.mock.calls[0]?.[0]).toBe(
          `gw proxy: --xds-token-file ${join(dir, 'no-token')}: cannot be read (ENOENT)`,
        );
        err.mockClear();
        expect(await run([...xds, '--workers', workers, '--ready-address', 'localhost'])).toBe(1);
        expect(err.mock.calls[0]?.[0]).toBe('gw proxy: --ready-address localhost: must look like host:port');
        err.mockClear();
        expect(await run([...xds, '--workers', workers, '--ready-address', `127.0.0.1:${port}`])).toBe(1);
        expect(err.mock.calls).toEqual([
          [`gw proxy: --ready-address 127.0.0.1:${port}: the port is already in use (another process listens there)`],
        ]);
      }
    } finally {
      err.mockRestore();
      taken.close();
    }
  });
});
