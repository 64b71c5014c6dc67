// GwBackend dynamicForwardProxy, the pure parts: which destination a Host header names (table cases in
// testdata/dynamic-forward-hosts.yaml), what counts as this proxy itself, and Via loop marks.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { destinationOf, isSelf, viaHas, viaWith } from '../../src/proxy/http/dynamic-forward.js';
import { checkSnapshot } from '../../src/proxy/snapshot-check.js';

interface Case {
  name: string;
  host?: string;
  tls?: boolean;
  want?: { host: string; port: number };
  error?: string;
}
const cases = parse(readFileSync(new URL('./testdata/dynamic-forward-hosts.yaml', import.meta.url), 'utf8')) as Case[];

describe('destinationOf', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = destinationOf(c.host, c.tls ?? false);
    if (c.want) expect(got).toEqual({ ok: true, destination: c.want });
    else {
      expect(got.ok).toBe(false);
      expect(got.ok ? '' : got.reason).toContain(c.error);
    }
  });
});

describe('loop checks', () => {
  const local = new Set(['10.0.0.7', '0.0.0.0', '::']);

  it('treats a loopback or local address on a listener port as this proxy', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '10.0.0.7', '0.0.0.0'])
      expect(isSelf(a, 8080, [8080], local), a).toBe(true);
  });

  it('lets through another port on this machine and the listener port on another machine', () => {
    expect(isSelf('127.0.0.1', 9090, [8080], local)).toBe(false);
    expect(isSelf('10.0.0.8', 8080, [8080], local)).toBe(false);
  });

  it('finds its own pseudonym among Via hops and appends itself', () => {
    expect(viaHas('1.0 fred, 1.1 gw-0000abcd', 'gw-0000abcd')).toBe(true);
    expect(viaHas(['1.1 other'], 'gw-0000abcd')).toBe(false);
    expect(viaHas(undefined, 'gw-0000abcd')).toBe(false);
    expect(viaWith('1.0 fred', 'gw-1')).toBe('1.0 fred, 1.1 gw-1');
    expect(viaWith(undefined, 'gw-1')).toBe('1.1 gw-1');
  });
});

describe('snapshot check', () => {
  it('accepts a dynamicForwardProxy backend', () => {
    const snapshot = normalizeSnapshot({
      version: '1',
      resources: [{ backend: { name: 'b', dynamicForwardProxy: {} } }],
    });
    expect(checkSnapshot(snapshot, 'test')).toEqual([]);
  });
});

describe('open forward proxy warning', () => {
  it('reads access control from the typed policy, not from the effective-field text', async () => {
    const { hasAccessControl } = await import('../../src/proxy/http/dynamic-forward.js');
    const route = (policy: Record<string, unknown> | undefined, effective: Record<string, string> = {}) =>
      ({ name: 'r', policy, effective: { fields: effective, provenance: {} } }) as unknown as Parameters<
        typeof hasAccessControl
      >[0];
    expect(hasAccessControl(route(undefined, { 'traffic.jwtAuthentication': '{}' }))).toBe(false);
    expect(hasAccessControl(route({ basicAuthentication: { users: [] } }))).toBe(true);
    expect(hasAccessControl(route({ authorization: { rules: [] } }))).toBe(false);
    expect(hasAccessControl(route({ authorization: { rules: [{ expressions: ['true'], action: 'ALLOW' }] } }))).toBe(
      true,
    );
  });
});
