// The exported Static types and the schemas describe the same objects (a value typed by the TS types
// passes the validator; the compiler rejects shapes the schema rejects), and the variant helpers.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  backendVariant,
  providerVariant,
  validateManifest,
  type GwBackendSpec,
  type GwPolicy,
  type GwModelSpec,
  type GwParametersSpec,
} from '../../src/api/index.js';

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
    expectTypeOf<NonNullable<NonNullable<GwParametersSpec['workload']>['kind']>>().toEqualTypeOf<
      'Deployment' | 'DaemonSet'
    >();
    expectTypeOf<NonNullable<GwBackendSpec['a2a']>>().toEqualTypeOf<{ host: string; port: number }>();
    // @ts-expect-error port is required on a2a
    const bad: GwBackendSpec = { a2a: { host: 'h' } };
    expect(
      validateManifest({ apiVersion: 'gw.dev/v1alpha1', kind: 'GwBackend', metadata: { name: 'b' }, spec: bad }, 't'),
    ).toHaveLength(1);
  });
});

describe('variants', () => {
  it('turns the CRD oneOf into a discriminated union', () => {
    const spec: GwBackendSpec = { mcp: { targets: [{ name: 't', static: { host: 'h', port: 1 } }] } };
    const v = backendVariant(spec);
    expect(v).toEqual({ kind: 'mcp', mcp: spec.mcp });
    if (v?.kind === 'mcp') expectTypeOf(v.mcp.targets).toBeArray();
    expect(providerVariant({ anthropic: { model: 'm' }, host: 'h' })).toEqual({
      kind: 'anthropic',
      anthropic: { model: 'm' },
    });
  });

  it('is undefined unless exactly one member is set', () => {
    expect(backendVariant({})).toBeUndefined();
    expect(backendVariant({ static: { host: 'h', port: 1 }, a2a: { host: 'h', port: 1 } })).toBeUndefined();
  });
});
