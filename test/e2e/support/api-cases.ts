// The API test tables (test/api/testdata/cases/*.yaml for the Gw kinds, gateway-api-cases/*.yaml for the Gateway
// API kinds), shared with the API's unit tests: each file is a YAML list of { name, valid, path?, manifest }; and
// the API server's verdict on one manifest.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CustomObjectsApi } from '@kubernetes/client-node';
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

/** The Gateway API kinds' table (test/api/testdata/gateway-api-cases/*.yaml), the same shape. */
export const gatewayApiCaseDir = join(repoRoot, 'test', 'api', 'testdata', 'gateway-api-cases');

/** Every case in the table; throws naming the file and entry when the table is missing or malformed. */
export function loadApiCases(dir: string = apiCaseDir): ApiCase[] {
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .sort()
    : [];
  if (files.length === 0) throw new Error(`e2e: the API test table ${dir}/*.yaml is missing or empty`);
  const cases: ApiCase[] = [];
  for (const file of files) {
    // YAML 1.1, as kubectl and the API's own table test read it ('yes' quoted is a string, yes a boolean).
    const list: unknown = parse(readFileSync(join(dir, file), 'utf8'), { version: '1.1' });
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

export interface Verdict {
  valid: boolean;
  detail: string;
}

/** Where the API server serves a kind: what a custom-objects client needs to address it. */
export interface ServedResource {
  plural: string;
  namespaced: boolean;
}

/**
 * The API server's verdict on `manifest` (server-side dry run, in `namespace` when the kind is namespaced).
 * Strict field validation is what `kubectl apply` asks for by default: an unknown field is an error, not
 * silently pruned.
 */
export async function serverDryRun(
  api: CustomObjectsApi,
  manifest: Record<string, unknown>,
  namespace: string,
  resource: ServedResource,
): Promise<Verdict> {
  const [group, version] = String(manifest.apiVersion).split('/') as [string, string];
  const common = {
    group,
    version,
    plural: resource.plural,
    dryRun: 'All',
    fieldManager: 'gw-e2e-parity',
    fieldValidation: 'Strict',
  };
  try {
    if (resource.namespaced) {
      const body = { ...manifest, metadata: { ...(manifest.metadata as object), namespace } };
      await api.createNamespacedCustomObject({ ...common, namespace, body });
    } else {
      await api.createClusterCustomObject({ ...common, body: manifest });
    }
    return { valid: true, detail: 'admitted (dry run)' };
  } catch (err) {
    const e = err as { code?: number; body?: unknown };
    // 422 Invalid and 400 BadRequest (a value that does not decode) are verdicts; anything else (404:
    // kind not installed) is a broken setup and must not count as "invalid".
    if (e.code === 422 || e.code === 400) return { valid: false, detail: `${e.code}: ${statusMessage(e.body)}` };
    throw err;
  }
}

function statusMessage(body: unknown): string {
  try {
    return (JSON.parse(String(body)) as { message?: string }).message ?? String(body);
  } catch {
    return String(body);
  }
}
