import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/deployer/json.js';
import { smpSchemaFor } from '../../src/deployer/smp-schema.js';
import { SmpError, strategicMergePatch } from '../../src/deployer/strategic-merge.js';

const schema = smpSchemaFor('apps/v1', 'Deployment')!;

describe('strategicMergePatch', () => {
  it('keeps a __proto__ key as a plain field and never touches Object.prototype', () => {
    const base = JSON.parse(
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x","__proto__":{"a":"1"}}}',
    ) as JsonObject;
    const patch = JSON.parse(
      '{"metadata":{"__proto__":{"polluted":"yes"}},"spec":{"__proto__":{"polluted":"yes"}}}',
    ) as JsonObject;
    const out = strategicMergePatch(base, patch, schema);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out))).toEqual(
      JSON.parse(
        '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x","__proto__":{"a":"1","polluted":"yes"}},"spec":{"__proto__":{"polluted":"yes"}}}',
      ),
    );
  });

  it('does not modify its inputs', () => {
    const base: JsonObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', labels: { a: '1' } } };
    const patch: JsonObject = { metadata: { labels: { a: null, $patch: 'replace' } } };
    const before = JSON.stringify([base, patch]);
    strategicMergePatch(base, patch, schema);
    expect(JSON.stringify([base, patch])).toBe(before);
  });

  it('reports a malformed patch with the field path of the offending item', () => {
    const base: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { template: { spec: { containers: [{ name: 'a' }] } } },
    };
    const patch: JsonObject = {
      spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'X' }] }, { image: 'y' }] } } },
    };
    const err = (() => {
      try {
        strategicMergePatch(base, patch, schema);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(SmpError);
    expect((err as SmpError).path).toBe('spec.template.spec.containers[1]');
  });
});
