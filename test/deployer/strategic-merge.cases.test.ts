// Table cases, one per directive and merge key: testdata/smp/<case>.yaml holds base, patch and the
// expected result (or error). Every expected result is also checked against kubectl, so the table
// documents real Kubernetes behaviour. REFRESH_GOLDEN=1 rewrites `expected` from our output.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import type { JsonObject } from '../../src/deployer/json.js';
import { sortKeys } from '../../src/deployer/json.js';
import { smpSchemaFor } from '../../src/deployer/smp-schema.js';
import { strategicMergePatch } from '../../src/deployer/strategic-merge.js';
import { kubeTools } from '../support/kube-tools.js';

const dataDir = join(import.meta.dirname, 'testdata', 'smp');
const tmp = mkdtempSync(join(tmpdir(), 'gw-smp-cases-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Case {
  base: JsonObject;
  patch: JsonObject;
  expected?: JsonObject;
  error?: string;
}

function kubectlPatch(c: Case): { ok: true; value: JsonObject } | { ok: false } {
  const file = join(tmp, 'base.json');
  writeFileSync(file, JSON.stringify(c.base));
  try {
    const out = execFileSync(
      kubeTools().kubectl,
      ['patch', '--local', '-f', file, '--type', 'strategic', '-o', 'json', '-p', JSON.stringify(c.patch)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    return { ok: true, value: JSON.parse(out.toString()) as JsonObject };
  } catch {
    return { ok: false };
  }
}

describe('strategic merge patch table cases', () => {
  for (const name of readdirSync(dataDir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    it(name.replace(/\.yaml$/, '').replaceAll('-', ' '), () => {
      const file = join(dataDir, name);
      const doc = parseDocument(readFileSync(file, 'utf8'));
      const c = doc.toJS() as Case;
      const schema = smpSchemaFor(String(c.base.apiVersion), String(c.base.kind));
      expect(schema, `schema for ${String(c.base.kind)}`).toBeDefined();
      const oracle = kubectlPatch(c);
      if (c.error !== undefined) {
        expect(() => strategicMergePatch(c.base, c.patch, schema!)).toThrow(c.error);
        expect(oracle.ok, 'kubectl rejects it too').toBe(false);
        return;
      }
      const actual = sortKeys(strategicMergePatch(c.base, c.patch, schema!));
      if (process.env.REFRESH_GOLDEN === '1') {
        doc.set('expected', doc.createNode(actual));
        writeFileSync(file, doc.toString());
        return;
      }
      expect(actual).toStrictEqual(c.expected);
      expect(oracle.ok && sortKeys(oracle.value), 'kubectl gives the expected result').toStrictEqual(c.expected);
    });
  }
});
