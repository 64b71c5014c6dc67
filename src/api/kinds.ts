// The four Gw kinds (plus GwModelList): top-level object schemas and the CRD metadata the generator needs.
import { Type, type Static, type TSchema } from './schema-kit.js';
import { GwBackendSpec } from './backend.js';
import { GwModelSpec } from './model.js';
import { GwParametersSpec } from './parameters.js';
import { GwPolicySpec } from './policy.js';
import { BackendStatus, ModelStatus, ParametersStatus, PolicyStatus } from './status.js';

export const GROUP = 'gw.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

const ObjectMeta = Type.Object({
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
  annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
});

function kindObject<K extends string, S extends TSchema, St extends TSchema>(kind: K, spec: S, status: St) {
  return Type.Object({
    apiVersion: Type.Literal(API_VERSION),
    kind: Type.Literal(kind),
    metadata: ObjectMeta,
    spec,
    status: Type.Optional(status),
  });
}

export const GwBackend = kindObject('GwBackend', GwBackendSpec, BackendStatus);
export const GwModel = kindObject('GwModel', GwModelSpec, ModelStatus);
export const GwParameters = kindObject('GwParameters', GwParametersSpec, ParametersStatus);
export const GwPolicy = kindObject('GwPolicy', GwPolicySpec, PolicyStatus);
export const GwModelList = Type.Object({
  apiVersion: Type.Literal(API_VERSION),
  kind: Type.Literal('GwModelList'),
  metadata: Type.Optional(
    Type.Object({ resourceVersion: Type.Optional(Type.String()), continue: Type.Optional(Type.String()) }),
  ),
  items: Type.Array(GwModel),
});

export type GwBackend = Static<typeof GwBackend>;
export type GwModel = Static<typeof GwModel>;
export type GwParameters = Static<typeof GwParameters>;
export type GwPolicy = Static<typeof GwPolicy>;
export type GwModelList = Static<typeof GwModelList>;

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date' | 'boolean';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface KindInfo {
  kind: 'GwBackend' | 'GwModel' | 'GwParameters' | 'GwPolicy';
  plural: string;
  singular: string;
  shortNames: string[];
  spec: TSchema;
  status: TSchema;
  printerColumns: PrinterColumn[];
}

const accepted: PrinterColumn = {
  name: 'Accepted',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Accepted")].status',
};
const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** Every Gw kind that has a CRD, in a stable order. */
export const KINDS: readonly KindInfo[] = [
  {
    kind: 'GwBackend',
    plural: 'gwbackends',
    singular: 'gwbackend',
    shortNames: ['gwbe'],
    spec: GwBackendSpec,
    status: BackendStatus,
    printerColumns: [accepted, age],
  },
  {
    kind: 'GwModel',
    plural: 'gwmodels',
    singular: 'gwmodel',
    shortNames: ['gwm'],
    spec: GwModelSpec,
    status: ModelStatus,
    printerColumns: [
      { name: 'Provider', type: 'string', jsonPath: '.spec.provider' },
      { name: 'Match', type: 'string', jsonPath: '.spec.match.model', priority: 1 },
      { name: 'Visibility', type: 'string', jsonPath: '.spec.visibility' },
      age,
    ],
  },
  {
    kind: 'GwParameters',
    plural: 'gwparameters',
    singular: 'gwparameters',
    shortNames: ['gwparams'],
    spec: GwParametersSpec,
    status: ParametersStatus,
    printerColumns: [{ name: 'Workload', type: 'string', jsonPath: '.spec.workload.kind' }, age],
  },
  {
    kind: 'GwPolicy',
    plural: 'gwpolicies',
    singular: 'gwpolicy',
    shortNames: ['gwpol'],
    spec: GwPolicySpec,
    status: PolicyStatus,
    printerColumns: [
      { name: 'Target Kind', type: 'string', jsonPath: '.spec.targetRefs[0].kind' },
      { name: 'Target', type: 'string', jsonPath: '.spec.targetRefs[0].name' },
      age,
    ],
  },
];

export function kindInfo(kind: string): KindInfo | undefined {
  return KINDS.find((k) => k.kind === kind);
}
