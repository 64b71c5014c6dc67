import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir, helmTemplate, testdataDir } from './helm-run.js';

interface RejectedCase {
  name: string;
  values: Record<string, unknown>;
  error: string;
}

const rejected = parse(readFileSync(join(testdataDir, 'rejected-values.yaml'), 'utf8')) as RejectedCase[];
const scratch = mkdtempSync(join(tmpdir(), 'gw-values-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('gw chart values validation', () => {
  it.each(rejected.map((c, i) => ({ ...c, i })))('$name', ({ values, error, i }) => {
    const file = join(scratch, `case-${i}.values.yaml`);
    // JSON, so no YAML 1.1 reading (yes → true) can change what the case means.
    writeFileSync(file, JSON.stringify(values));
    const result = helmTemplate([file]);
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(error);
  });

  it('documents every values.yaml key in values.schema.json, so additionalProperties never rejects a default', () => {
    const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as SchemaNode;
    const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    expect(undeclaredKeys(values, schema, '')).toEqual([]);
  });
});

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
}

/** Keys of values.yaml whose object schema neither declares them nor allows extra keys. */
function undeclaredKeys(value: unknown, schema: SchemaNode, path: string): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const declared = schema.properties?.[key];
    if (declared) return undeclaredKeys(child, declared, `${path}.${key}`);
    return schema.additionalProperties === false ? [`${path}.${key}`] : [];
  });
}
