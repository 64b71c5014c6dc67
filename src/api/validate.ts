// Validates manifests the way the API server would admit them (schema, defaults, CEL rules) and compiles
// CELExpression fields. Pure: callers read files; this takes text or decoded objects.
import { parseAllDocuments } from 'yaml';
import { closestName, type Problem } from '../problem.js';
import {
  GATEWAY_API_GROUP,
  gatewayApiClusterScoped,
  gatewayApiSchema,
  warmUpGatewayApiValidators,
} from './gateway-api.js';
import { API_VERSION, GROUP, KINDS, kindInfo, type KindInfo } from './kinds.js';
import { schemaChecker, type SchemaChecker } from './schema-check.js';

export interface ParsedManifests {
  manifests: unknown[];
  problems: Problem[];
}

/**
 * Splits multi-document YAML (or JSON) into objects; empty documents are skipped. Reads YAML 1.1 like
 * kubectl, so unquoted `Off`, `yes`, `y` are booleans here exactly as they are for the API server.
 */
export function parseManifests(text: string, source: string): ParsedManifests {
  const manifests: unknown[] = [];
  const problems: Problem[] = [];
  parseAllDocuments(text, { version: '1.1' }).forEach((doc, i) => {
    if (doc.errors.length > 0) {
      for (const e of doc.errors)
        problems.push({
          source,
          path: '',
          message: `document ${i + 1} is not valid YAML: ${e.message.split('\n')[0]}`,
        });
      return;
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value !== null && value !== undefined) manifests.push(value);
  });
  return { manifests, problems };
}

const checkers = new Map<string, { spec: SchemaChecker; status: SchemaChecker }>();
function checkersFor(info: KindInfo) {
  let c = checkers.get(info.kind);
  if (!c) {
    c = { spec: schemaChecker(info.spec), status: schemaChecker(info.status) };
    checkers.set(info.kind, c);
  }
  return c;
}

/**
 * Compiles every Gw kind's validators, and the Gateway API kinds', now (seconds of ajv code generation)
 * rather than inside the first watch event of that kind, where it would stall the event loop mid-burst.
 */
export function warmUpValidators(): void {
  for (const info of KINDS) {
    const c = checkersFor(info);
    // One run each: V8 compiles the generated code on first call, tens of ms for the larger kinds.
    c.spec.check({}, ['spec']);
    c.status.check({}, ['status']);
  }
  warmUpGatewayApiValidators();
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function objectLabel(kind: string, meta: Record<string, unknown>): string {
  const name = typeof meta.name === 'string' ? meta.name : '<unnamed>';
  if (gatewayApiClusterScoped(kind)) return `${kind} ${name}`;
  const ns = typeof meta.namespace === 'string' ? meta.namespace : 'default';
  return `${kind} ${ns}/${name}`;
}

/**
 * Every problem with one manifest. Gw kinds get the full check, and so does the spec of each Gateway API kind Gw
 * reads (the published schemas, gateway-api.ts; status is the business of the controllers that write it); other
 * kinds (core, Gateway API kinds Gw ignores) only apiVersion, kind and metadata.name, as their schemas live in
 * the API server.
 */
export function validateManifest(obj: unknown, source: string): Problem[] {
  if (!isObject(obj))
    return [{ source, path: '', message: 'must be a Kubernetes object (a YAML mapping), not a scalar or list' }];
  const kind = typeof obj.kind === 'string' && obj.kind !== '' ? obj.kind : undefined;
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const object = objectLabel(kind ?? '<no kind>', meta);
  const problems: Problem[] = [];
  const add = (path: string, message: string) => problems.push({ source, object, path, message });

  if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') add('apiVersion', 'is required');
  if (!kind) add('kind', 'is required');
  if (problems.length > 0) return problems;
  const apiVersion = obj.apiVersion as string;
  const [group, version] = apiVersion.split('/');
  const isGw = group === GROUP;
  const gatewayApi = group === GATEWAY_API_GROUP && version ? gatewayApiSchema(kind!, version) : undefined;
  if (gatewayApi && !gatewayApi.ok) add('apiVersion', gatewayApi.message);

  if (isGw && apiVersion !== API_VERSION) add('apiVersion', `must be ${API_VERSION}, got "${apiVersion}"`);
  if (isGw && kind === 'GwModelList') return [...problems, ...validateList(obj, source, object)];
  const info = isGw ? kindInfo(kind!) : undefined;
  if (isGw && !info) {
    add('kind', `must be one of ${[...KINDS.map((k) => k.kind), 'GwModelList'].join(', ')}, got "${kind}"`);
    return problems;
  }

  if (!isObject(obj.metadata)) add('metadata', 'is required');
  else {
    if (typeof meta.name !== 'string' || meta.name === '') add('metadata.name', 'is required');
    else if (meta.name.length > 253 || !NAME.test(meta.name))
      add('metadata.name', `must be a lower-case DNS subdomain name, got "${meta.name}"`);
    if (
      meta.namespace !== undefined &&
      (typeof meta.namespace !== 'string' || !NAMESPACE.test(meta.namespace) || meta.namespace.length > 63)
    ) {
      add('metadata.namespace', `must be a lower-case DNS label, got ${JSON.stringify(meta.namespace)}`);
    }
  }
  if (info) {
    const c = checkersFor(info);
    checkBody(obj, c.spec.check, add);
    if (obj.status !== undefined) for (const p of c.status.check(obj.status, ['status'])) add(p.path, p.message);
  } else if (gatewayApi?.ok) checkBody(obj, gatewayApi.check, add);
  return problems;
}

const TOP_LEVEL = ['apiVersion', 'kind', 'metadata', 'spec', 'status'];

/** The spec against its kind's schema, and no top-level field but the five every object has. */
function checkBody(
  obj: Record<string, unknown>,
  check: SchemaChecker['check'],
  add: (path: string, message: string) => void,
): void {
  if (obj.spec === undefined) add('spec', 'is required');
  else for (const p of check(obj.spec, ['spec'])) add(p.path, p.message);
  for (const key of Object.keys(obj)) {
    if (TOP_LEVEL.includes(key)) continue;
    const known = closestName(key, TOP_LEVEL);
    add(key, `is not a known field${known ? `; did you mean ${known}?` : ''}`);
  }
}

function validateList(obj: Record<string, unknown>, source: string, object: string): Problem[] {
  if (!Array.isArray(obj.items)) return [{ source, object, path: 'items', message: 'is required and must be a list' }];
  return obj.items.flatMap((item, i) => {
    if (isObject(item) && item.kind !== 'GwModel') {
      return [
        { source, object, path: `items[${i}].kind`, message: `must be GwModel, got ${JSON.stringify(item.kind)}` },
      ];
    }
    return validateManifest(item, source);
  });
}
