// Properties of the Duration and ByteSize scalars: the JS validator (pattern + CEL limit rule) accepts
// exactly the strings an independent reading of seed 001 accepts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BYTE_SIZE_LIMIT, parseByteSize, validateManifest } from '../../src/api/index.js';

/** A GwPolicy whose only checked scalars are the given duration and byte size. */
function policy(duration: string, bytes: string) {
  return {
    apiVersion: 'gw.dev/v1alpha1',
    kind: 'GwPolicy',
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'gw' }],
      frontend: { http: { http1IdleTimeout: duration, maxBufferSize: bytes } },
    },
  };
}
const problemsAt = (path: string, duration: string, bytes: string) =>
  validateManifest(policy(duration, bytes), 'prop').filter((p) => p.path === path);

const unit = fc.constantFrom('h', 'm', 's', 'ms');
const part = fc.tuple(fc.integer({ min: 0, max: 99999 }), unit).map(([n, u]) => `${n}${u}`);
const validDuration = fc
  .array(part, { minLength: 1, maxLength: 4 })
  .map((p) => p.join(''))
  .filter((s) => s.length <= 32);

describe('Duration', () => {
  it('accepts 1 to 4 parts of up to 5 digits with h, m, s or ms', () => {
    fc.assert(
      fc.property(validDuration, (d) => problemsAt('spec.frontend.http.http1IdleTimeout', d, '1').length === 0),
      { numRuns: 200 },
    );
  });

  it('rejects 5 parts, 6-digit numbers, bare numbers and unknown units', () => {
    const invalid = fc.oneof(
      fc.array(part, { minLength: 5, maxLength: 6 }).map((p) => p.join('')),
      fc.tuple(fc.integer({ min: 100000, max: 9999999 }), unit).map(([n, u]) => `${n}${u}`),
      fc.integer({ min: 0, max: 99999 }).map(String),
      fc
        .tuple(fc.integer({ min: 0, max: 99 }), fc.constantFrom('d', 'us', 'ns', 'H', ' s', 'sec'))
        .map(([n, u]) => `${n}${u}`),
    );
    fc.assert(
      fc.property(invalid, (d) => problemsAt('spec.frontend.http.http1IdleTimeout', d, '1').length >= 1),
      { numRuns: 200 },
    );
  });
});

const SUFFIX: Record<string, number> = {
  '': 1,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
};

describe('ByteSize', () => {
  const size = fc.tuple(
    fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.bigInt({ min: 0n, max: 9999999999999n }).map(Number)),
    fc.constantFrom(...Object.keys(SUFFIX)),
  );

  it('accepts a quantity exactly when it is at most 4Gi bytes', () => {
    fc.assert(
      fc.property(size, ([n, suffix]) => {
        const text = `${n}${suffix}`;
        const fits = BigInt(n) * BigInt(SUFFIX[suffix]!) <= BigInt(BYTE_SIZE_LIMIT);
        expect(problemsAt('spec.frontend.http.maxBufferSize', '1s', text).length === 0).toBe(fits);
        if (fits) expect(parseByteSize(text)).toBe(n * SUFFIX[suffix]!);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects strings that are not quantities', () => {
    const bad = fc.oneof(
      fc.constantFrom('', '1.5Mi', '-1', '1 Mi', 'Mi', '1KB', '1mi', '1Kib', '0x10'),
      fc
        .string({ minLength: 1, maxLength: 8 })
        .filter((s) => !/^[0-9]{1,13}(Ki|Mi|Gi|Ti|Pi|Ei|kb|mb|gb|tb|k|M|G|T|P|E)?$/.test(s)),
    );
    fc.assert(
      fc.property(
        bad,
        (b) => problemsAt('spec.frontend.http.maxBufferSize', '1s', b).length > 0 && parseByteSize(b) === undefined,
      ),
      { numRuns: 200 },
    );
  });

  it('rejects the boundary just above the limit in every unit', () => {
    expect(problemsAt('spec.frontend.http.maxBufferSize', '1s', '4294967296')).toEqual([]);
    expect(problemsAt('spec.frontend.http.maxBufferSize', '1s', '4294967297')).toHaveLength(1);
    expect(problemsAt('spec.frontend.http.maxBufferSize', '1s', '4194304Ki')).toEqual([]);
    expect(problemsAt('spec.frontend.http.maxBufferSize', '1s', '4194305Ki')).toHaveLength(1);
    expect(problemsAt('spec.frontend.http.maxBufferSize', '1s', '4gb')).toEqual([]);
    expect(problemsAt('spec.frontend.http.maxBufferSize', '1s', '5gb')).toHaveLength(1);
  });
});
