// Checks a value against one kind's schema exactly as the API server would: defaults first, then the
// structural schema (ajv, draft-04 like CRD schemas, unknown fields rejected as kubectl's strict field
// validation does), then every x-kubernetes-validations CEL rule at its node, then CELExpression fields.
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import AjvDraft04 from 'ajv-draft-04';
import { compileCel, evalRuleOnCel, toCelValue } from '../cel/env.js';
import { closestName, fieldPath } from '../problem.js';
import { toOpenAPI } from './crd.js';
import { BYTE_SIZE_PATTERN, DURATION_PATTERN, X_VALIDATIONS, type CelRule, type TSchema } from './schema-kit.js';

type Schema = Record<string, unknown>;
type Segment = string | number;

export interface FieldProblem {
  path: string;
  message: string;
}

const HINTS = ['x-gw-cel', 'x-gw-cel-or-duration'];
const TRANSITION_RULE = /\boldSelf\b/;

/** The schema with hints kept and `additionalProperties: false` on closed objects (strict field validation). */
function strictSchema(schema: unknown): Schema {
  const s = toOpenAPI(schema as TSchema, HINTS) as Schema;
  const close = (node: Schema): void => {
    if (node.properties && node.additionalProperties === undefined && !node['x-kubernetes-preserve-unknown-fields'])
      node.additionalProperties = false;
    for (const child of children(node)) close(child);
  };
  close(s);
  return s;
}

function children(node: Schema): Schema[] {
  const out: Schema[] = [];
  if (node.properties) out.push(...Object.values(node.properties as Record<string, Schema>));
  if (node.items && typeof node.items === 'object') out.push(node.items as Schema);
  if (node.additionalProperties && typeof node.additionalProperties === 'object')
    out.push(node.additionalProperties as Schema);
  return out;
}

/**
 * The same schema with every large subtree that occurs more than once (BackendFull, BackendWithAI, auth, …)
 * moved to `definitions` and referenced, so ajv generates its code once: compiling drops from seconds.
 */
function hoistShared(root: Schema): Schema {
  const keys = new Map<Schema, string>();
  const counts = new Map<string, number>();
  const count = (n: Schema): void => {
    const k = JSON.stringify(n);
    keys.set(n, k);
    counts.set(k, (counts.get(k) ?? 0) + 1);
    children(n).forEach(count);
  };
  count(root);
  const definitions: Record<string, Schema> = {};
  const names = new Map<string, string>();
  const rewrite = (n: Schema): Schema => {
    const k = keys.get(n)!;
    if (n === root || (counts.get(k) ?? 0) < 2 || k.length < 1000) return rewriteChildren(n);
    let name = names.get(k);
    if (!name) {
      name = `s${names.size}`;
      names.set(k, name);
      definitions[name] = rewriteChildren(n);
    }
    return { $ref: `#/definitions/${name}` };
  };
  const rewriteChildren = (n: Schema): Schema => {
    const out: Schema = { ...n };
    if (n.properties)
      out.properties = Object.fromEntries(
        Object.entries(n.properties as Record<string, Schema>).map(([k, v]) => [k, rewrite(v)]),
      );
    if (n.items && typeof n.items === 'object') out.items = rewrite(n.items as Schema);
    if (n.additionalProperties && typeof n.additionalProperties === 'object')
      out.additionalProperties = rewrite(n.additionalProperties as Schema);
    return out;
  };
  return { ...rewrite(root), definitions };
}

function newAjv(): Ajv {
  const Draft04 = AjvDraft04 as unknown as typeof Ajv;
  const ajv = new Draft04({
    allErrors: true,
    strict: false,
    validateFormats: false,
    verbose: true,
    code: { optimize: false },
  });
  for (const k of [
    'x-kubernetes-validations',
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-int-or-string',
    'x-kubernetes-list-type',
    'x-kubernetes-list-map-keys',
    'x-kubernetes-map-type',
    'x-kubernetes-embedded-resource',
    ...HINTS,
  ]) {
    ajv.addKeyword({ keyword: k });
  }
  return ajv;
}

const ajv = newAjv();

export interface SchemaChecker {
  check(value: unknown, prefix: Segment[]): FieldProblem[];
}

/** Builds the checker for one schema (spec or status of a kind); do it once per schema. */
export function schemaChecker(source: TSchema): SchemaChecker {
  const schema = strictSchema(source);
  const validate = ajv.compile(hoistShared(schema));
  // CEL rules too: compiling on first use would land inside the first object of a burst.
  for (const rule of celRulesIn(schema)) compileCel(rule);
  return { check: (value, prefix) => checkValue(schema, validate, value, prefix) };
}

function celRulesIn(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) celRulesIn(n, out);
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === X_VALIDATIONS) for (const r of v as CelRule[]) out.add(r.rule);
      else celRulesIn(v, out);
    }
  }
  return out;
}

function checkValue(schema: Schema, validate: ValidateFunction, input: unknown, prefix: Segment[]): FieldProblem[] {
  const value = applyDefaults(schema, structuredClone(input));
  const problems: FieldProblem[] = [];
  const badPaths: string[] = [];
  if (!validate(value)) {
    for (const err of validate.errors ?? []) {
      const p = ajvProblem(err, prefix);
      if (p) {
        problems.push(p);
        badPaths.push(fieldPath([...prefix, ...pointerSegments(err.instancePath)]));
      }
    }
  }
  walk(schema, value, celView(schema, value), prefix, (node, v, cel, segs) => {
    const here = fieldPath(segs);
    // A subtree the structural schema already rejected would only give CEL type errors.
    if (badPaths.some((b) => b === here || b.startsWith(here + '.') || b.startsWith(here + '['))) return;
    for (const r of (node[X_VALIDATIONS] as CelRule[] | undefined) ?? []) {
      // A transition rule compares with the stored object (`oldSelf`): the API server runs it on updates only.
      if (TRANSITION_RULE.test(r.rule)) continue;
      const ok = evalRuleOnCel(r.rule, cel === undefined ? celView(node, v) : cel);
      if (ok === true) continue;
      const path = r.fieldPath ? here + r.fieldPath : here;
      problems.push({ path, message: ok === false ? r.message : `${r.message} (rule failed to evaluate: ${ok})` });
    }
    if (
      typeof v === 'string' &&
      (node['x-gw-cel'] || (node['x-gw-cel-or-duration'] && !new RegExp(String(node['x-gw-cel-or-duration'])).test(v)))
    ) {
      const c = compileCel(v);
      if (!c.ok) problems.push({ path: here, message: `is not a valid CEL expression: ${c.message}` });
    }
    const listKeys = node['x-kubernetes-list-map-keys'] as string[] | undefined;
    if (Array.isArray(v) && listKeys) {
      const seen = new Set<string>();
      v.forEach((item, i) => {
        const values = listKeys
          .map((k) => `${k} ${JSON.stringify((item as Record<string, unknown>)?.[k])}`)
          .join(' and ');
        if (seen.has(values))
          problems.push({ path: fieldPath([...segs, i]), message: `duplicates the entry with ${values}` });
        seen.add(values);
      });
    }
  });
  return problems;
}

// CEL keywords a property name may be (apiserver's cel.Escape): `namespace` is read as `self.__namespace__`.
const CEL_RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(
    ' ',
  ),
);

const ESCAPES: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };
const celNames = new Map<string, string | undefined>();

/** A property name as a rule reads it (`__namespace__`, `a__dash__b`), or undefined for one CEL cannot name. */
function celName(name: string): string | undefined {
  if (celNames.has(name)) return celNames.get(name);
  let out: string | undefined;
  if (name === '' || /^[0-9]/.test(name) || /[^a-zA-Z0-9_./-]/.test(name)) out = undefined;
  else if (CEL_RESERVED.has(name)) out = `__${name}__`;
  else out = name.replace(/__|[./-]/g, (m) => ESCAPES[m]!);
  celNames.set(name, out);
  return out;
}

/**
 * The value as rules see it (toCelValue), with the schema's property names escaped as the API server binds
 * them; map keys stay as written. Built once per check; walk hands each node its part.
 */
function celView(node: Schema, value: unknown): unknown {
  if (Array.isArray(value)) return node.items ? value.map((v) => celView(node.items as Schema, v)) : toCelValue(value);
  if (value === null || typeof value !== 'object') return toCelValue(value);
  const props = node.properties as Record<string, Schema> | undefined;
  const extra = typeof node.additionalProperties === 'object' ? (node.additionalProperties as Schema) : undefined;
  if (!props && !extra) return toCelValue(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const child = props?.[k];
    if (child) {
      const name = celName(k);
      if (name !== undefined) out[name] = celView(child, v);
    } else out[k] = extra ? celView(extra, v) : toCelValue(v);
  }
  return out;
}

/**
 * Visits every present value with its schema node and its part of the CEL view (undefined under a property
 * CEL cannot name), parents before children.
 */
function walk(
  node: Schema,
  value: unknown,
  cel: unknown,
  segs: Segment[],
  visit: (node: Schema, value: unknown, cel: unknown, segs: Segment[]) => void,
): void {
  if (value === undefined) return;
  visit(node, value, cel, segs);
  if (Array.isArray(value) && node.items) {
    value.forEach((item, i) =>
      walk(node.items as Schema, item, (cel as unknown[] | undefined)?.[i], [...segs, i], visit),
    );
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const props = (node.properties ?? {}) as Record<string, Schema>;
    const extra = typeof node.additionalProperties === 'object' ? (node.additionalProperties as Schema) : undefined;
    const celObj = cel as Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(value)) {
      const own = props[k];
      const child = own ?? extra;
      if (!child) continue;
      const name = own ? celName(k) : k;
      walk(child, v, name === undefined ? undefined : celObj?.[name], [...segs, k], visit);
    }
  }
}

/**
 * API-server defaulting (apiextensions' PruneNonNullableNullsWithoutDefaults, then Default): a null for a
 * non-nullable field is dropped, or replaced by the default when there is one; a missing property with a
 * default gets it; defaulting continues inside.
 */
export function applyDefaults(node: Schema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = node.items as Schema | undefined;
    if (!items) return value;
    return value.map((v) =>
      applyDefaults(
        items,
        v === null && !items.nullable && items.default !== undefined ? structuredClone(items.default) : v,
      ),
    );
  }
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const props = (node.properties ?? {}) as Record<string, Schema>;
  const extra = typeof node.additionalProperties === 'object' ? (node.additionalProperties as Schema) : undefined;
  for (const k of Object.keys(obj)) {
    const child = props[k] ?? extra;
    if (obj[k] === null && child && !child.nullable) {
      if (child.default === undefined) delete obj[k];
      else obj[k] = structuredClone(child.default);
    }
  }
  for (const [k, child] of Object.entries(props)) {
    if (obj[k] === undefined && child.default !== undefined) obj[k] = structuredClone(child.default);
  }
  for (const k of Object.keys(obj)) {
    const child = props[k] ?? extra;
    if (child) obj[k] = applyDefaults(child, obj[k]);
  }
  return obj;
}

function pointerSegments(pointer: string): Segment[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^[0-9]+$/.test(s) ? Number(s) : s));
}

function show(v: unknown): string {
  return typeof v === 'string'
    ? JSON.stringify(v.length > 64 ? `${v.slice(0, 61)}...` : v)
    : (JSON.stringify(v) ?? String(v));
}

function oneSentenceList(values: unknown[]): string {
  const parts = values.map((v) => String(v));
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}`;
}

function ajvProblem(err: ErrorObject, prefix: Segment[]): FieldProblem | undefined {
  const segs = [...prefix, ...pointerSegments(err.instancePath)];
  const at = (message: string, extra?: Segment) => ({
    path: fieldPath(extra === undefined ? segs : [...segs, extra]),
    message,
  });
  const p = err.params as Record<string, unknown>;
  const s = err.parentSchema as Schema | undefined;
  const data = err.data;
  // Branch errors of an int-or-string anyOf are summarised by the anyOf error itself.
  if (err.schemaPath.includes('/anyOf/')) return undefined;
  switch (err.keyword) {
    case 'required':
      return at('is required', String(p.missingProperty));
    case 'additionalProperties': {
      const field = String(p.additionalProperty);
      const known = closestName(field, Object.keys((s?.properties as Schema | undefined) ?? {}));
      return at(`is not a known field${known ? `; did you mean ${known}?` : ''}`, field);
    }
    case 'type':
      return at(
        `must be ${p.type === 'integer' || p.type === 'object' || p.type === 'array' ? 'an' : 'a'} ${p.type}, got ${data === null ? 'null' : Array.isArray(data) ? 'a list' : typeof data}`,
      );
    case 'minimum':
    case 'maximum':
      if (s && s.minimum !== undefined && s.maximum !== undefined)
        return at(`must be between ${s.minimum} and ${s.maximum}, got ${show(data)}`);
      return at(`must be ${err.keyword === 'minimum' ? 'at least' : 'at most'} ${p.limit}, got ${show(data)}`);
    case 'minLength':
      return at(`must be at least ${p.limit} character${p.limit === 1 ? '' : 's'} long`);
    case 'maxLength':
      return at(`must be at most ${p.limit} characters long, got ${(data as string).length}`);
    case 'minItems':
      return at(`must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`);
    case 'maxItems':
      return at(`must have at most ${p.limit} items, got ${(data as unknown[]).length}`);
    case 'minProperties':
      return at(`must have at least ${p.limit} entr${p.limit === 1 ? 'y' : 'ies'}`);
    case 'maxProperties':
      return at(`must have at most ${p.limit} entries, got ${Object.keys(data as object).length}`);
    case 'enum': {
      const hint =
        typeof data === 'boolean'
          ? ' (YAML reads unquoted Off, On, Yes, No, Y and N as booleans; quote the value)'
          : '';
      return at(`must be one of ${oneSentenceList(p.allowedValues as unknown[])}, got ${show(data)}${hint}`);
    }
    case 'pattern':
      if (p.pattern === DURATION_PATTERN) return at(`must be a duration like 10s, 1m30s or 500ms, got ${show(data)}`);
      if (p.pattern === BYTE_SIZE_PATTERN) return at(`must be a byte size like 1024, 16kb or 2Mi, got ${show(data)}`);
      return at(`must match the pattern ${p.pattern}, got ${show(data)}`);
    case 'anyOf':
      return s?.['x-kubernetes-int-or-string']
        ? at(`must be an integer or a string, got ${show(data)}`)
        : at('does not match any allowed shape');
    default:
      return at(err.message ?? 'is invalid');
  }
}
