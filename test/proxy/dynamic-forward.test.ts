// GwBackend dynamicForwardProxy, the pure parts: which destination a Host header names (table cases in
// testdata/dynamic-forward-hosts.yaml), what counts as this proxy itself, and Via loop marks.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { allowList, cidrProblem } from '../../src/proxy/net/public-address.js';
import { destinationOf, isSelf, refusedDestination, viaHas, viaWith } from '../../src/proxy/http/dynamic-forward.js';
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

describe('destinations refused by default', () => {
  const none = new Set<string>();

  it("refuses this machine's own addresses even when they are public", () => {
    expect(refusedDestination('93.184.215.5', undefined, new Set(['93.184.215.5']))).toBe("this pod's own address");
    expect(refusedDestination('93.184.215.6', undefined, new Set(['93.184.215.5']))).toBeUndefined();
  });

  it('lets public addresses through and reads IPv4-mapped IPv6 as IPv4', () => {
    expect(refusedDestination('93.184.215.14', undefined, none)).toBeUndefined();
    expect(refusedDestination('2606:4700::1111', undefined, none)).toBeUndefined();
    expect(refusedDestination('::ffff:10.0.0.1', undefined, none)).toBe('a private address');
    expect(refusedDestination('::ffff:a9fe:a9fe', undefined, none)).toContain('link-local');
  });

  it('refuses every range that is not public unicast, each with its reason, unless allowedDestinations lists it', () => {
    expect(refusedDestination('203.0.113.5', undefined, none)).toBe('a documentation address');
    expect(refusedDestination('64:ff9b::a9fe:a9fe', undefined, none)).toContain('NAT64');
    expect(refusedDestination('64:ff9b::a9fe:a9fe', allowList(['64:ff9b::/96']), none)).toBeUndefined();
    expect(refusedDestination('::ffff:c000:201', undefined, none)).toBe('a documentation address');
  });

  it('allows what allowedDestinations lists, IPv4-mapped ranges included', () => {
    expect(refusedDestination('10.1.2.3', allowList(['10.1.0.0/16']), none)).toBeUndefined();
    expect(refusedDestination('10.2.0.1', allowList(['10.1.0.0/16']), none)).toBe('a private address');
    expect(refusedDestination('127.0.0.1', allowList(['::ffff:127.0.0.0/104']), none)).toBeUndefined();
    expect(refusedDestination('fd00::5', allowList(['fd00::/8']), none)).toBeUndefined();
  });

  it('names what is not a CIDR range', () => {
    expect(cidrProblem('10.0.0.0/8')).toBeUndefined();
    expect(cidrProblem('fd00::/8')).toBeUndefined();
    expect(cidrProblem('10.0.0.0/33')).toContain('CIDR');
    expect(cidrProblem('999.0.0.0/8')).toContain('CIDR');
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

  it('refuses an allowedDestinations entry that is not a CIDR range, naming it', () => {
    const snapshot = normalizeSnapshot({
      version: '1',
      resources: [
        { backend: { name: 'b', dynamicForwardProxy: { allowedDestinations: ['10.0.0.0/8', '10.0.0.0/40'] } } },
      ],
    });
    expect(checkSnapshot(snapshot, 'test')).toEqual([
      expect.objectContaining({ path: 'dynamicForwardProxy.allowedDestinations[1]' }),
    ]);
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
