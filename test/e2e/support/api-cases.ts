// The API test table (test/api/testdata/cases/*.yaml), shared with the API's unit tests: each file is a
// YAML list of { name, valid, path?, manifest }.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from './paths.js';

export const apiCaseDir = join(repoRoot, 'test', 'api', 'testdata', 'cases');

export interface ApiCase {
  /** `file.yaml: name`, unique across the table. */
  id: string;
  valid: boolean;
  /** For an invalid case, the field path the error names. */
  path?: string;
  manifest: Record<string, unknown>;
}

/** Every case in the table; throws naming the file and entry when the table is missing or malformed. */
export function loadApiCases(): ApiCase[] {
  const files = existsSync(apiCaseDir)
    ? readdirSync(apiCaseDir)
        .filter((f) => f.endsWith('.yaml'))
        .sort()
    : [];
  if (files.length === 0) throw new Error(`e2e: the API test table ${apiCaseDir}/*.yaml is missing or empty`);
  const cases: ApiCase[] = [];
  for (const file of files) {
    // YAML 1.1, as kubectl and the API's own table test read it ('yes' quoted is a string, yes a boolean).
    const list: unknown = parse(readFileSync(join(apiCaseDir, file), 'utf8'), { version: '1.1' });
    if (!Array.isArray(list)) throw new Error(`${file}: must be a YAML list of cases`);
    list.forEach((entry: unknown, i) => {
      const c = entry as { name?: unknown; valid?: unknown; path?: unknown; manifest?: unknown };
      if (
        typeof c?.name !== 'string' ||
        typeof c.valid !== 'boolean' ||
        typeof c.manifest !== 'object' ||
        c.manifest === null
      ) {
        throw new Error(`${file}: [${i}]: needs a string name, a boolean valid and an object manifest`);
      }
      cases.push({
        id: `${basename(file)}: ${c.name}`,
        valid: c.valid,
        ...(typeof c.path === 'string' ? { path: c.path } : {}),
        manifest: c.manifest as Record<string, unknown>,
      });
    });
  }
  return cases;
}
