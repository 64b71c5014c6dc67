// The exported Static types and the schemas describe the same objects: a value typed by the TS types
// passes the validator, and the compiler rejects shapes the schema rejects.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { validateManifest, type GwBackendSpec, type GwPolicy, type GwModelSpec, type GwParametersSpec } from '../../src/api/index.js';

describe('Static types', () => {
  it('a GwPolicy built with the TS types validates', () => {
    const policy: GwPolicy = {
      apiVersion: 'gw.dev/v1alpha1',
      kind: 'GwPolicy',
      metadata: { name: 'typed', namespace: 'default' },
      spec: {
        targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'r' }],
        traffic: { rateLimit: { local: [{ requests: 10, unit: 'Seconds' }] }, retry: { attempts: 2, codes: [503] } },
      },
    };
    expect(validateManifest(policy, 'typed')).toEqual([]);
  });

  it('enums are string unions and required fields are required', () => {
    expectTypeOf<NonNullable<GwModelSpec['visibility']>>().toEqualTypeOf<'Public' | 'Internal'>();
    expectTypeOf<NonNullable<NonNullable<GwParametersSpec['workload']>['kind']>>().toEqualTypeOf<'Deployment' | 'DaemonSet'>();
    expectTypeOf<NonNullable<GwBackendSpec['a2a']>>().toEqualTypeOf<{ host: string; port: number }>();
    // @ts-expect-error port is required on a2a
    const bad: GwBackendSpec = { a2a: { host: 'h' } };
    expect(validateManifest({ apiVersion: 'gw.dev/v1alpha1', kind: 'GwBackend', metadata: { name: 'b' }, spec: bad }, 't')).toHaveLength(1);
  });
});
