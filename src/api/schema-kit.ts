// Building blocks for the Gw API schemas. Every scalar of seed 001 and every union rule is defined here
// once, so the CRD's OpenAPI schema and CEL rules and the JS validator all derive from the same objects.
import { CloneType, Type, type Static, type TSchema, type TUnsafe, type SchemaOptions } from '@sinclair/typebox';

/** One `x-kubernetes-validations` entry: a CEL rule evaluated with `self` bound to the schema node. */
export interface CelRule {
  rule: string;
  message: string;
  /** JSON-path-ish suffix (`.port`) the API server appends to the node's path when reporting. */
  fieldPath?: string;
}

export const X_VALIDATIONS = 'x-kubernetes-validations';

function list(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

function countSet(fields: readonly string[]): string {
  return fields.map((f) => `(has(self.${f}) ? 1 : 0)`).join(' + ');
}

/** Exactly one of `fields` must be set. */
export function oneOf(fields: readonly string[]): CelRule {
  return { rule: `${countSet(fields)} == 1`, message: `exactly one of ${list(fields)} must be set` };
}

/** Zero or one of `fields` may be set. */
export function atMostOne(fields: readonly string[]): CelRule {
  return { rule: `${countSet(fields)} <= 1`, message: `at most one of ${list(fields)} may be set` };
}

/** `field` may only be set when `requires` is set. */
export function onlyWith(field: string, requires: string, message?: string): CelRule {
  return {
    rule: `!has(self.${field}) || has(self.${requires})`,
    message: message ?? `${field} may only be set together with ${requires}`,
  };
}

export function rule(expr: string, message: string, fieldPath?: string): CelRule {
  return fieldPath ? { rule: expr, message, fieldPath } : { rule: expr, message };
}

/** Schema options carrying CEL rules. */
export function rules(...r: CelRule[]): SchemaOptions {
  return { [X_VALIDATIONS]: r };
}

// ---- Scalars (seed 001 "Scalar types") ----

export const ShortString = (o: SchemaOptions = {}) => Type.String({ minLength: 1, maxLength: 256, ...o });
export const LongString = (o: SchemaOptions = {}) => Type.String({ minLength: 1, maxLength: 1024, ...o });
export const TinyString = (o: SchemaOptions = {}) => Type.String({ minLength: 1, maxLength: 64, ...o });
/** A Common Expression Language expression; `gw validate` also compiles it. */
export const CELExpression = (o: SchemaOptions = {}) =>
  Type.String({ minLength: 1, maxLength: 16384, 'x-gw-cel': true, ...o });
export const DURATION_PATTERN = '^([0-9]{1,5}(h|m|s|ms)){1,4}$';
export const Duration = (o: SchemaOptions = {}) => Type.String({ maxLength: 32, pattern: DURATION_PATTERN, ...o });

/** The largest buffer or window the data plane accepts: 4Gi bytes. */
export const BYTE_SIZE_LIMIT = 4 * 1024 ** 3;
/** Suffix → multiplier; two-letter suffixes first so `kb` is not read as `b`-less `k`. */
export const BYTE_SIZE_SUFFIXES: ReadonlyArray<readonly [string, number]> = [
  ['Ki', 1024],
  ['Mi', 1024 ** 2],
  ['Gi', 1024 ** 3],
  ['Ti', 1024 ** 4],
  ['Pi', 1024 ** 5],
  ['Ei', 1024 ** 6],
  ['kb', 1e3],
  ['mb', 1e6],
  ['gb', 1e9],
  ['tb', 1e12],
  ['k', 1e3],
  ['M', 1e6],
  ['G', 1e9],
  ['T', 1e12],
  ['P', 1e15],
  ['E', 1e18],
];
export const BYTE_SIZE_PATTERN = `^[0-9]{1,13}(${BYTE_SIZE_SUFFIXES.map(([s]) => s).join('|')})?$`;

/** CEL: the quantity in `self` is at most BYTE_SIZE_LIMIT (compares n <= floor(limit / multiplier), so no overflow). */
function byteSizeRule(): CelRule {
  let expr = `int(self) <= ${BYTE_SIZE_LIMIT}`;
  for (const [suffix, mult] of [...BYTE_SIZE_SUFFIXES].reverse()) {
    const max = Math.floor(BYTE_SIZE_LIMIT / mult);
    expr = `self.endsWith('${suffix}') ? int(self.substring(0, self.size() - ${suffix.length})) <= ${max} : (${expr})`;
  }
  // A string failing the pattern is reported by the pattern check; keep the rule from erroring on it.
  return {
    rule: `!self.matches('${BYTE_SIZE_PATTERN}') || (${expr})`,
    message: 'must be at most 4Gi (4294967296 bytes), the data-plane size limit',
  };
}
export const ByteSize = (o: SchemaOptions = {}) =>
  Type.String({ minLength: 1, maxLength: 32, pattern: BYTE_SIZE_PATTERN, ...rules(byteSizeRule()), ...o });

const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
export const HeaderName = (o: SchemaOptions = {}) =>
  Type.String({ minLength: 1, maxLength: 256, pattern: `^${TOKEN}$`, ...o });
/** A header name that may also be a pseudo-header (`:authority`). */
export const PseudoHeaderName = (o: SchemaOptions = {}) =>
  Type.String({ minLength: 1, maxLength: 256, pattern: `^:?${TOKEN}$`, ...o });

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
/** Gateway API SectionName. */
export const SectionName = (o: SchemaOptions = {}) =>
  Type.String({ minLength: 1, maxLength: 253, pattern: `^${DNS_LABEL}(\\.${DNS_LABEL})*$`, ...o });
/** Kubernetes object name (DNS subdomain). */
export const ObjectName = (o: SchemaOptions = {}) =>
  Type.String({ minLength: 1, maxLength: 253, pattern: `^${DNS_LABEL}(\\.${DNS_LABEL})*$`, ...o });
export const Namespace = (o: SchemaOptions = {}) =>
  Type.String({ minLength: 1, maxLength: 63, pattern: `^${DNS_LABEL}$`, ...o });
export const Port = (o: SchemaOptions = {}) => Type.Integer({ minimum: 1, maximum: 65535, ...o });
export const HttpUrl = (o: SchemaOptions = {}) =>
  Type.String({ minLength: 1, maxLength: 1024, pattern: '^https?://[^\\s/?#@]+(/[^\\s]*)?$', ...o });

/** A string enum; CRDs need `enum`, not TypeBox's `anyOf` of literals. */
export function StringEnum<const T extends readonly string[]>(values: T, o: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...o });
}

/** A map with string keys (CRD `additionalProperties`), at most `max` entries. */
export function MapOf<V extends TSchema>(
  value: V,
  o: SchemaOptions & { maxProperties?: number } = {},
): TUnsafe<Record<string, Static<V>>> {
  return Type.Unsafe<Record<string, Static<V>>>({
    type: 'object',
    additionalProperties: value,
    maxProperties: 64,
    ...o,
  });
}

/** Any JSON value, kept as-is by the API server. */
export const Json = (o: SchemaOptions = {}) =>
  Type.Unsafe<unknown>({ 'x-kubernetes-preserve-unknown-fields': true, ...o });
/** A JSON object, kept as-is by the API server. */
export const JsonObject = (o: SchemaOptions = {}) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...o });

export const FailureMode = (o: SchemaOptions = {}) => StringEnum(['FailClosed', 'FailOpen'] as const, o);
export const StrictMode = (o: SchemaOptions = {}) =>
  StringEnum(['Strict', 'Optional', 'Permissive'] as const, { default: 'Strict', ...o });

/** The schema with a description, shown by `kubectl explain`. */
export function doc<T extends TSchema>(schema: T, description: string): T {
  return CloneType(schema, { description });
}

export { Type };
export type { Static, TSchema };
