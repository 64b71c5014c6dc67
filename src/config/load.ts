// Reads the standalone config file into the IR: YAML → `${NAME}` expansion → schema validation →
// semantic checks → translation. Every failure is a Problem with the field path; nothing partial escapes.
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { Ajv, type ErrorObject } from 'ajv';
import type { Problem } from '../problem.js';
import { ProblemError, fieldPath } from '../problem.js';
import { ConfigFile } from './schema.js';
import { expandEnv } from './env.js';
import { configToIr } from './to-ir.js';
import { configRefusals, type ConfigRefusal } from './refusals.js';
import { createHash } from 'node:crypto';
import { encodeSnapshot, normalizeSnapshot } from '../ir/load.js';
import type { Snapshot } from '../ir/types.js';

const ajv = new Ajv({ allErrors: true, coerceTypes: true, strict: false, verbose: true });
const validate = ajv.compile<ConfigFile>(ConfigFile);

export function parseConfig(text: string, source: string, env: Record<string, string | undefined>): ConfigFile {
  const { config, problems } = collectConfig(text, source, env);
  if (problems.length > 0) throw new ProblemError(problems);
  return config;
}

/**
 * The file's config and every problem of it in one pass: unset variables, schema errors and the checks
 * that read only part of the shape; `valid` says whether the shape is whole enough to translate.
 */
function collectConfig(
  text: string,
  source: string,
  env: Record<string, string | undefined>,
): { config: ConfigFile; problems: Problem[]; valid: boolean } {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ProblemError(
      doc.errors.map((e) => ({
        source,
        path: '',
        message: `is not valid YAML: ${(e.message.split('\n')[0] ?? '').replace(/:$/, '')}`,
      })),
    );
  }
  const problems: Problem[] = [];
  const expanded = expandEnv(doc.toJS(), env, source, problems);
  if (expanded === null || typeof expanded !== 'object') {
    throw new ProblemError([
      ...problems,
      { source, path: '', message: 'must be a YAML mapping with a top-level `mcp` object' },
    ]);
  }
  const valid = validate(expanded);
  if (!valid) problems.push(...schemaProblems(validate.errors ?? [], source));
  problems.push(...semanticProblems(expanded as ConfigFile, source));
  return { config: expanded as ConfigFile, problems, valid };
}

/** The file's config, its IR snapshot, and the fields it sets that this release refuses (print them with refusalLines). */
export async function loadConfigFile(
  file: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ config: ConfigFile; snapshot: Snapshot; refusals: ConfigRefusal[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ProblemError([
      { source: file, path: '', message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}` },
    ]);
  }
  const { config, problems, valid } = collectConfig(text, file, env);
  // Translation finds the rest (CEL rules, …) in the same pass, when the shape allows it.
  let ir: ReturnType<typeof configToIr> | undefined;
  if (valid) {
    try {
      ir = configToIr(config, file);
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err;
      problems.push(...err.problems);
    }
  }
  if (problems.length > 0 || !ir) throw new ProblemError(problems);
  // The version is a content hash, so an edit that changes nothing is recognisable downstream.
  const snapshot = normalizeSnapshot({
    ...ir,
    version: createHash('sha256').update(encodeSnapshot(ir)).digest('hex').slice(0, 16),
  });
  return { config, snapshot, refusals: configRefusals(config, file) };
}

function schemaProblems(errors: ErrorObject[], source: string): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  // oneOf branches report their own `required` misses; the oneOf error itself says it better.
  const oneOfPaths = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  for (const e of errors) {
    if (e.schemaPath.includes('/oneOf/') && oneOfPaths.has(e.instancePath)) continue;
    const segs = e.instancePath
      .split('/')
      .slice(1)
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')));
    let message: string;
    switch (e.keyword) {
      case 'required':
        segs.push(String(e.params.missingProperty));
        message = 'is required';
        break;
      case 'additionalProperties':
        segs.push(String(e.params.additionalProperty));
        message = 'is not a known field';
        break;
      case 'oneOf':
        message = `must set exactly one of ${(e.schema as Array<{ required: string[] }>).map((s) => s.required[0]).join(', ')}`;
        break;
      case 'enum':
        message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
        break;
      case 'anyOf':
        message = 'has a value that is not allowed';
        break;
      case 'minimum':
      case 'maximum':
        message = rangeMessage(e);
        break;
      case 'minProperties':
      case 'maxProperties':
        message = `must have ${e.keyword === 'minProperties' ? 'at least' : 'at most'} ${String(e.params.limit)} entries, got ${Object.keys(e.data as object).length}`;
        break;
      case 'const':
        message = '';
        break;
      default:
        message = e.message ?? 'is invalid';
    }
    if (e.keyword === 'const') continue; // folded into the parent anyOf error
    if (e.keyword === 'anyOf') message = describeUnion(e);
    const p = { source, path: fieldPath(segs), message };
    const key = `${p.path}\0${p.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  }
  return out;
}

function rangeMessage(e: ErrorObject): string {
  const { minimum, maximum } = (e.parentSchema ?? {}) as { minimum?: number; maximum?: number };
  if (minimum !== undefined && maximum !== undefined)
    return `must be between ${minimum} and ${maximum}, got ${JSON.stringify(e.data)}`;
  return `${e.message ?? 'is out of range'}, got ${JSON.stringify(e.data)}`;
}

function describeUnion(e: ErrorObject): string {
  const options = (e.schema as Array<{ const?: unknown }>).map((s) => s.const).filter((v) => v !== undefined);
  return options.length > 0
    ? `must be one of ${options.join(', ')}, got ${JSON.stringify(e.data)}`
    : 'does not match any allowed form';
}

/** Checks the schema cannot express; they read only what they check, so they also run on a file the schema refused. */
function semanticProblems(config: ConfigFile, source: string): Problem[] {
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  const targets: unknown = config.mcp?.targets;
  (Array.isArray(targets) ? (targets as ConfigFile['mcp']['targets']) : []).forEach((t, i) => {
    if (typeof t?.name !== 'string') return;
    const first = seen.get(t.name);
    if (first !== undefined)
      problems.push({
        source,
        path: fieldPath(['mcp', 'targets', i, 'name']),
        message: `duplicates the name of mcp.targets[${first}]: ${t.name}`,
      });
    else seen.set(t.name, i);
  });
  const exposed: unknown = config.mcp?.policies?.cors?.exposeHeaders;
  if (Array.isArray(exposed) && !exposed.some((h) => h === '*' || h.toLowerCase() === 'mcp-session-id')) {
    problems.push({
      source,
      path: 'mcp.policies.cors.exposeHeaders',
      message: 'must include Mcp-Session-Id so browser clients can read the session header',
    });
  }
  return problems;
}
