// The committed CRDs are exactly what `make crds` generates, in crds/ and in the Helm chart.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderCrdFiles } from '../../src/api/crd-yaml.js';
import { KINDS } from '../../src/api/index.js';

const root = join(import.meta.dirname, '..', '..');
const generated = renderCrdFiles();

describe('generated CRDs', () => {
  it.each(['crds', 'charts/gw/crds'])(
    '%s holds exactly the generated files, unchanged (run `make crds` if this fails)',
    (dir) => {
      const files = readdirSync(join(root, dir))
        .filter((f) => f.endsWith('.yaml'))
        .sort();
      expect(files).toEqual(generated.map((g) => g.file).sort());
      for (const g of generated) expect(readFileSync(join(root, dir, g.file), 'utf8'), `${dir}/${g.file}`).toBe(g.text);
    },
  );

  it('is deterministic', () => {
    expect(renderCrdFiles()).toEqual(generated);
  });

  it.each(KINDS.map((k) => [k.kind, k] as const))(
    '%s has status subresource, category gw, short names and printer columns',
    (kind, info) => {
      const crd = parse(generated.find((g) => g.file === `gw.dev_${info.plural}.yaml`)!.text);
      expect(crd.spec.names).toMatchObject({
        kind,
        plural: info.plural,
        categories: ['gw'],
        shortNames: info.shortNames,
      });
      const v = crd.spec.versions[0];
      expect(v).toMatchObject({ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } });
      expect(v.additionalPrinterColumns.length).toBeGreaterThan(0);
    },
  );

  it.each(KINDS.map((k) => [k.kind, k] as const))(
    '%s bounds every string and list so CEL cost stays estimable',
    (_kind, info) => {
      const crd = parse(generated.find((g) => g.file === `gw.dev_${info.plural}.yaml`)!.text);
      const unbounded: string[] = [];
      const visit = (s: Record<string, unknown>, path: string): void => {
        if (s.type === 'string' && s.maxLength === undefined && s.enum === undefined) unbounded.push(path);
        if (s.type === 'array' && s.maxItems === undefined) unbounded.push(path);
        for (const [k, c] of Object.entries((s.properties ?? {}) as Record<string, Record<string, unknown>>))
          visit(c, `${path}.${k}`);
        if (s.items) visit(s.items as Record<string, unknown>, `${path}[]`);
        if (typeof s.additionalProperties === 'object')
          visit(s.additionalProperties as Record<string, unknown>, `${path}{}`);
      };
      visit(v(crd).schema.openAPIV3Schema.properties.spec!, 'spec');
      visit(v(crd).schema.openAPIV3Schema.properties.status!, 'status');
      expect(unbounded).toEqual([]);
    },
  );
});

function v(crd: {
  spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: Record<string, Record<string, unknown>> } } }> };
}) {
  return crd.spec.versions[0]!;
}
