// modelRefusals: which GwModel fields the translator refuses (the IR carries them, the status names them).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { modelRefusals } from '../../src/translate/model-refusals.js';

interface Case {
  name: string;
  spec: Record<string, unknown>;
  refusals: { field: string; security: boolean }[];
}
const cases = parse(readFileSync(new URL('./testdata/model-refusals/cases.yaml', import.meta.url), 'utf8')) as Case[];

describe('modelRefusals', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = modelRefusals({ key: 'default/m', obj: { spec: c.spec } });
    expect(got.map((r) => ({ field: r.field, security: r.security }))).toEqual(c.refusals);
    for (const r of got) {
      expect(r.source).toBe('GwModel default/m');
      expect(r.reason).not.toBe('');
    }
  });
});
