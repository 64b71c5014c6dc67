// Replays the case tables under testdata/cases: every valid manifest passes, every invalid one is
// rejected at the recorded field path; and every CEL rule of the schemas is exercised by some case.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KINDS, validateManifest, toOpenAPI } from '../../src/api/index.js';
import { compileCel } from '../../src/cel/env.js';
import { formatProblem } from '../../src/problem.js';

interface Case {
  name: string;
  valid: boolean;
  path?: string;
  manifest: { apiVersion: string; kind: string; metadata: { name: string; namespace: string }; spec: unknown };
}

// cases/: the API server must agree (the e2e suite replays them with server-side dry run).
// cel-compile/: only `gw validate` rejects these, because it also compiles CELExpression fields.
const testdata = join(import.meta.dirname, 'testdata');
const tables = ['cases', 'cel-compile'].flatMap((sub) =>
  readdirSync(join(testdata, sub))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({
      table: `${sub}/${file}`,
      file,
      cases: parse(readFileSync(join(testdata, sub, file), 'utf8'), { version: '1.1' }) as Case[],
    })),
);

describe.each(tables)('case table $table', ({ file, cases }) => {
  it('has one table per kind, complete manifests in namespace default and unique names', () => {
    const kind = KINDS.find((k) => `${k.kind.toLowerCase()}.yaml` === file)?.kind;
    expect(kind, `${file} must be named after a Gw kind`).toBeDefined();
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    for (const c of cases) {
      expect(Object.keys(c).sort()).toEqual(
        c.valid ? ['manifest', 'name', 'valid'] : ['manifest', 'name', 'path', 'valid'],
      );
      expect(c.manifest).toMatchObject({ apiVersion: 'gw.dev/v1alpha1', kind, metadata: { namespace: 'default' } });
      expect(typeof c.manifest.metadata.name).toBe('string');
      expect(c.manifest.spec).toBeDefined();
    }
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const problems = validateManifest(c.manifest, file);
    const lines = problems.map(formatProblem);
    if (c.valid) {
      expect(lines).toEqual([]);
    } else {
      expect(lines.length, 'an invalid case must produce a problem').toBeGreaterThan(0);
      expect(
        problems.map((p) => p.path),
        lines.join('\n'),
      ).toContain(c.path);
    }
  });
});

/** Every `x-kubernetes-validations` message in a schema, with the schema paths it sits at. */
function ruleMessages(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => ruleMessages(s, out));
  else if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'x-kubernetes-validations') for (const r of v as Array<{ message: string }>) out.add(r.message);
      else ruleMessages(v, out);
    }
  }
  return out;
}

describe('rule coverage', () => {
  // Shared types (BackendFull, auth, …) appear in several kinds; one breaking case anywhere covers the rule.
  it('every CEL rule message of every kind is produced by at least one invalid case', () => {
    const hit = new Set<string>();
    for (const t of tables)
      for (const c of t.cases) if (!c.valid) for (const p of validateManifest(c.manifest, 'x')) hit.add(p.message);
    const all = new Set<string>();
    for (const k of KINDS) ruleMessages(toOpenAPI(k.spec), all);
    const missing = [...all].filter((m) => ![...hit].some((h) => h === m));
    expect(missing).toEqual([]);
  });

  it('every CEL rule compiles in the control plane CEL environment', () => {
    const rules: string[] = [];
    const collect = (s: unknown): void => {
      if (Array.isArray(s)) s.forEach(collect);
      else if (s && typeof s === 'object') {
        for (const [k, v] of Object.entries(s)) {
          if (k === 'x-kubernetes-validations') rules.push(...(v as Array<{ rule: string }>).map((r) => r.rule));
          else collect(v);
        }
      }
    };
    for (const k of KINDS) collect(toOpenAPI(k.spec));
    expect(rules.length).toBeGreaterThan(50);
    expect(rules.filter((r) => !compileCel(r).ok)).toEqual([]);
  });
});
