// `gw validate -f <file|dir|->...`: checks manifests as the API server would admit them, offline.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatProblem, type Problem } from '../problem.js';
import { parseManifests, validateManifest } from '../api/validate.js';
import { authorizationCelProblems } from '../translate/objects/validate.js';

const USAGE = `Usage: gw validate -f <file|dir|-> [-f ...]

Validates Kubernetes manifests (multi-document YAML or JSON). Gw kinds (gw.dev/v1alpha1) get the full
check: schema, defaults, every CEL rule of the CRDs, and every CEL expression field is compiled. Other
kinds (Gateway API, core) only need apiVersion, kind and metadata.name. Directories are read
recursively (*.yaml, *.yml, *.json); - reads stdin.

Exit status: 0 when everything is valid, 1 when any problem was found (one line each on stderr), 2 on
usage errors.`;

function parseArgs(argv: string[]): { paths: string[] } | { error: string } {
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-f' || a === '--filename') {
      const v = argv[++i];
      if (v === undefined) return { error: `${a} needs a file, directory or -` };
      paths.push(v);
    } else if (a.startsWith('--filename=')) paths.push(a.slice('--filename='.length));
    else if (a.startsWith('-') && a !== '-') return { error: `unknown option ${a}` };
    else paths.push(a);
  }
  if (paths.length === 0) return { error: 'no input: give -f <file|dir|->' };
  return { paths };
}

/** Files under `path` in a stable order; a file path is returned as is. */
function expand(path: string): string[] {
  if (path === '-' || !statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const p = join(path, e.name);
      if (e.isDirectory()) return expand(p);
      return /\.(ya?ml|json)$/.test(e.name) ? [p] : [];
    });
}

/** Problems of every manifest in `text`. */
export function validateText(text: string, source: string): { count: number; problems: Problem[] } {
  const { manifests, problems } = parseManifests(text, source);
  for (const m of manifests) {
    const schema = validateManifest(m, source);
    problems.push(...(schema.length ? schema : proxyCelProblems(m, source)));
  }
  return { count: manifests.length, problems };
}

/** GwPolicy `traffic.authorization` rules the proxy's CEL environment rejects (the controller refuses such a policy). */
function proxyCelProblems(m: unknown, source: string): Problem[] {
  const o = m as {
    apiVersion?: unknown;
    kind?: unknown;
    metadata?: { name?: unknown; namespace?: unknown };
    spec?: unknown;
  };
  if (o.kind !== 'GwPolicy' || typeof o.apiVersion !== 'string' || !o.apiVersion.startsWith('gw.dev/')) return [];
  const object = `GwPolicy ${typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : 'default'}/${String(o.metadata?.name ?? '')}`;
  const out: Problem[] = [];
  authorizationCelProblems((o.spec ?? {}) as Record<string, unknown>, (path, message) =>
    out.push({ source, object, path, message }),
  );
  return out;
}

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const args = parseArgs(argv);
  if ('error' in args) {
    console.error(`gw validate: ${args.error}\n\n${USAGE}`);
    return 2;
  }
  const problems: Problem[] = [];
  let count = 0;
  for (const path of args.paths) {
    let files: string[];
    try {
      files = expand(path);
    } catch (e) {
      problems.push({
        source: path,
        path: '',
        message: `cannot be read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      });
      continue;
    }
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(file === '-' ? 0 : file, 'utf8');
      } catch (e) {
        problems.push({
          source: file,
          path: '',
          message: `cannot be read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
        });
        continue;
      }
      const r = validateText(text, file);
      count += r.count;
      problems.push(...r.problems);
    }
  }
  for (const p of problems) console.error(formatProblem(p));
  if (problems.length > 0) return 1;
  console.log(`gw validate: ${count} object${count === 1 ? '' : 's'} valid`);
  return 0;
}
