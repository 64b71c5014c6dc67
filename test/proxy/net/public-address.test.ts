// The address check for connections made on a client's behalf (Client ID Metadata Documents; the dynamic forward
// proxy's default refusals use the same table): public unicast only, decided on the addresses a connection uses.
import type { lookup, LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AddressRefused, guardedLookup, isPublicAddress } from '../../../src/proxy/net/public-address.js';

const cases = JSON.parse(readFileSync(new URL('./testdata/public-addresses.json', import.meta.url), 'utf8')) as {
  public: string[];
  notPublic: string[];
};

/** A dns.lookup stand-in that answers `addresses` for every name. */
function answering(addresses: string[]) {
  const all: LookupAddress[] = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  return ((_host: string, _opts: unknown, cb: (err: Error | null, a: LookupAddress[]) => void) =>
    cb(null, all)) as unknown as typeof lookup;
}

function resolve(addresses: string[], all = false): Promise<unknown> {
  return new Promise((ok, fail) =>
    guardedLookup(isPublicAddress, answering(addresses))('docs.example', { all }, (err, address, family) =>
      err ? fail(err) : ok(all ? address : { address, family }),
    ),
  );
}

describe('isPublicAddress', () => {
  it.each(cases.public)('allows %s', (a) => expect(isPublicAddress(a)).toBe(true));
  it.each(cases.notPublic)('refuses %s', (a) => expect(isPublicAddress(a)).toBe(false));
});

describe('guardedLookup', () => {
  it('answers a name whose addresses are all public, in the shape the caller asked for', async () => {
    await expect(resolve(['93.184.215.14'])).resolves.toEqual({ address: '93.184.215.14', family: 4 });
    await expect(resolve(['93.184.215.14', '2606:4700:4700::1111'], true)).resolves.toHaveLength(2);
  });

  it('refuses a name with any address that is not public, naming the host', async () => {
    await expect(resolve(['127.0.0.1'])).rejects.toThrow(AddressRefused);
    await expect(resolve(['93.184.215.14', '10.0.0.7'])).rejects.toThrow(
      'docs.example resolves to an address that is not public; refusing to connect',
    );
  });
});
