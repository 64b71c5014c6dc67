// `${NAME}` expansion over the parsed document's string values (never keys or comments), so a value
// containing YAML syntax cannot change the file's structure. `$${NAME}` stays literal.
import type { Problem } from '../problem.js';
import { fieldPath } from '../problem.js';

const reference = /\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function expandEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  source: string,
  problems: Problem[],
  at: Array<string | number> = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(reference, (whole, escaped: string | undefined, name: string) => {
      if (escaped) return whole.slice(1);
      const v = env[name];
      if (v === undefined) {
        problems.push({ source, path: fieldPath(at), message: `environment variable not found: ${name}` });
        return '';
      }
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, env, source, problems, [...at, i]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expandEnv(v, env, source, problems, [...at, k])]),
    );
  }
  return value;
}
