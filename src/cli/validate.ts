// `gw validate -f <file|dir|->...`: checks manifests as the API server would admit them, offline.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatProblem, type Problem } from '../problem.js';
import { parseManifests, validateManifest } from '../api/validate.js';
import { validateObject } from '../translate/objects/validate.js';
import { authorizationCelWarnings, type CelAuthorizations } from '../translate/objects/validate-gw.js';
import { extAuthCelProblems } from '../translate/policies/ext-auth.js';
import { extProcCelProblems } from '../translate/policies/ext-proc.js';
import { globalRateLimitCelProblems } from '../translate/policies/global-rate-limit.js';
import type { ExtProc, GlobalRateLimit } from '../api/index.js';
import { GATEWAY_API_GROUP, GATEWAY_API_RELEASE } from '../api/gateway-api.js';
import {
  displayName,
  isClusterScoped,
  isKind,
  nameKey,
  type Kind,
  type KubeObject,
} from '../translate/objects/types.js';

const USAGE = `Usage: gw validate -f <file|dir|-> [-f ...]

Validates Kubernetes manifests (multi-document YAML or JSON). Gw kinds (gw.dev/v1alpha1) get the full
check: schema, defaults, every CEL rule of the CRDs, and every CEL expression field is compiled. The
Gateway API kinds Gw reads (GatewayClass, Gateway, HTTPRoute, GRPCRoute, ListenerSet, ReferenceGrant,
BackendTLSPolicy) get the schema and CEL rules of the Gateway API ${GATEWAY_API_RELEASE} CRDs, then what the
controller refuses on its own. Other kinds only need apiVersion, kind and metadata.name. Directories are
read recursively (*.yaml, *.yml, *.json); - reads stdin.

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
export function validateText(
  text: string,
  source: string,
): { count: number; problems: Problem[]; warnings: Problem[] } {
  const { manifests, problems } = parseManifests(text, source);
  const warnings: Problem[] = [];
  for (const m of manifests) {
    const found = manifestProblems(m, source);
    problems.push(...found);
    if (found.length === 0) warnings.push(...manifestWarnings(m, source));
  }
  return { count: manifests.length, problems, warnings };
}

/** Rules of a valid GwPolicy or GwBackend that compile but can never match through some read (issue 31). */
function manifestWarnings(m: unknown, source: string): Problem[] {
  const o = m as { kind?: unknown; metadata?: { name?: string; namespace?: string }; spec?: unknown };
  if (o.kind !== 'GwPolicy' && o.kind !== 'GwBackend') return [];
  const object = displayName(o.kind, `${o.metadata?.namespace ?? 'default'}/${o.metadata?.name ?? ''}`);
  const out: Problem[] = [];
  authorizationCelWarnings(o.spec as CelAuthorizations, (path, message) => out.push({ source, object, path, message }));
  return out;
}

const GW_KINDS: readonly string[] = ['GwPolicy', 'GwBackend', 'GwModel', 'GwParameters'];

/** A Gw object, or a Gateway API object of a kind the controller reads: it gets the controller's checks. */
function controllerChecked<T extends { apiVersion?: unknown; kind?: unknown }>(o: T): o is T & { kind: Kind } {
  if (typeof o.kind !== 'string') return false;
  if (GW_KINDS.includes(o.kind)) return true;
  const group = typeof o.apiVersion === 'string' ? o.apiVersion.split('/')[0] : undefined;
  return group === GATEWAY_API_GROUP && isKind(o.kind);
}

/**
 * A Gw object gets exactly the checks the controller makes before translating it (validateObject: schema,
 * bounds, CEL rules, the checks past the schema), and a GwPolicy's extAuth expressions compiled as its
 * status compiles them; so does a Gateway API object of a kind Gw reads (the published schema, then what the
 * controller refuses on its own); anything else gets the schema check of its kind, if this CLI knows one.
 */
function manifestProblems(m: unknown, source: string): Problem[] {
  const o = m as { apiVersion?: unknown; kind?: unknown; metadata?: unknown; spec?: unknown };
  const meta = o.metadata;
  if (!controllerChecked(o) || !meta || typeof meta !== 'object') return validateManifest(m, source);
  const kind = o.kind;
  // Named as kubectl would place it: an object without a namespace lands in `default`.
  const placed = isClusterScoped(kind)
    ? (m as KubeObject)
    : { ...(m as KubeObject), metadata: { namespace: 'default', ...(meta as KubeObject['metadata']) } };
  const problems = validateObject(kind, placed, source);
  if (problems.length || kind !== 'GwPolicy') return problems;
  const traffic = (
    o.spec as
      | { traffic?: { extAuth?: Record<string, unknown>; extProc?: ExtProc; rateLimit?: { global?: GlobalRateLimit } } }
      | undefined
  )?.traffic;
  const extAuth = traffic?.extAuth;
  const object = displayName(
    kind,
    nameKey((meta as { namespace?: string }).namespace, (meta as { name: string }).name),
  );
  const celProblems = [
    ...(extAuth ? extAuthCelProblems(extAuth).map((p) => ({ ...p, path: `spec.traffic.extAuth.${p.path}` })) : []),
    ...(traffic?.extProc
      ? extProcCelProblems(traffic.extProc).map((p) => ({ ...p, path: `spec.traffic.extProc.${p.path}` }))
      : []),
    ...(traffic?.rateLimit?.global
      ? globalRateLimitCelProblems(traffic.rateLimit.global).map((p) => ({
          ...p,
          path: `spec.traffic.rateLimit.global.${p.path}`,
        }))
      : []),
  ];
  return celProblems.map((p) => ({ source, object, path: p.path, message: p.message }));
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
  const warnings: Problem[] = [];
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
      warnings.push(...r.warnings);
    }
  }
  for (const p of problems) console.error(formatProblem(p));
  for (const w of warnings) console.error(`warning: ${formatProblem(w)}`);
  if (problems.length > 0) return 1;
  console.log(`gw validate: ${count} object${count === 1 ? '' : 's'} valid`);
  return 0;
}
