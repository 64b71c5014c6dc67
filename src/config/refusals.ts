// Refused fields of the standalone config file, decided by the same coverage table as the CRDs
// (src/coverage/standalone.ts; issue 14). The coverage index and its tables are plain data
// and a matcher: importing them brings no schema, ajv or translator code into the proxy.
import { refusalsOf } from '../coverage/index.js';
import type { ConfigFile } from './schema.js';

export interface ConfigRefusal {
  field: string;
  source: string;
  reason: string;
  security: boolean;
}

/** Each refused field the file sets, with `file <path>` as source (what Route.refusals carries). */
export function configRefusals(config: ConfigFile, source: string): ConfigRefusal[] {
  return refusalsOf('standalone', config).map((r) => ({ ...r, source: `file ${source}` }));
}

/** One line per refusal, as `--validate-only` prints them: `config.yaml: mcp.x: refused: why`. */
export function refusalLines(refusals: readonly ConfigRefusal[], file: string): string[] {
  return refusals.map(
    (r) => `${file}: ${r.field}: refused${r.security ? ' (security: requests are answered 503)' : ''}: ${r.reason}`,
  );
}
