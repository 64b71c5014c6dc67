// Builds the apiextensions.k8s.io/v1 CustomResourceDefinition of each Gw kind from the TypeBox schemas.
// Pure: the generator script writes the result; tests compare it with the committed files.
import { GROUP, VERSION, KINDS, type KindInfo } from './kinds.js';
import type { TSchema } from './schema-kit.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Keys kept in a CRD schema; TypeBox symbols, `$id` and our `x-gw-*` hints are dropped. */
const CRD_KEYS = new Set([
  'type',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'enum',
  'default',
  'description',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'nullable',
  'anyOf',
  'allOf',
  'oneOf',
  'not',
  'x-kubernetes-validations',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-embedded-resource',
]);

/** The schema as plain OpenAPI v3 (CRD flavour) with keys sorted, so the output is deterministic. */
export function toOpenAPI(schema: TSchema | Json, keep: readonly string[] = []): Json {
  if (Array.isArray(schema)) return schema.map((s) => toOpenAPI(s as Json, keep));
  if (schema === null || typeof schema !== 'object') return schema as Json;
  const out: { [k: string]: Json } = {};
  for (const key of Object.keys(schema).sort()) {
    if (!CRD_KEYS.has(key) && !keep.includes(key)) continue;
    const value = (schema as Record<string, Json>)[key];
    if (key === 'properties') {
      const props: { [k: string]: Json } = {};
      for (const p of Object.keys(value as object).sort())
        props[p] = toOpenAPI((value as Record<string, Json>)[p] as Json, keep);
      out[key] = props;
    } else if (key === 'x-kubernetes-validations' || key === 'enum' || key === 'default' || key === 'required') {
      out[key] = JSON.parse(JSON.stringify(value)) as Json;
    } else {
      out[key] = toOpenAPI(value as Json, keep);
    }
  }
  return out;
}

export function buildCrd(info: KindInfo): Json {
  const openAPIV3Schema = {
    type: 'object',
    description: `${info.kind} is a Gw ${GROUP}/${VERSION} resource.`,
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      spec: toOpenAPI(info.spec),
      status: toOpenAPI(info.status),
    },
    required: ['spec'],
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${info.plural}.${GROUP}`,
      labels: { 'app.kubernetes.io/part-of': 'gw' },
    },
    spec: {
      group: GROUP,
      names: {
        kind: info.kind,
        listKind: `${info.kind}List`,
        plural: info.plural,
        singular: info.singular,
        shortNames: info.shortNames,
        categories: ['gw'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: info.printerColumns.map((c) => ({ ...c }) as unknown as Json),
          schema: { openAPIV3Schema },
        },
      ],
    },
  };
}

/** File name → CRD object for every kind. */
export function buildCrds(): Array<{ file: string; crd: Json }> {
  return KINDS.map((k) => ({ file: `${GROUP}_${k.plural}.yaml`, crd: buildCrd(k) }));
}
