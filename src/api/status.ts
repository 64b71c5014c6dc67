// Status types, shaped like metav1.Condition and Gateway API's parent/ancestor statuses.
import { Type, StringEnum } from './schema-kit.js';
import { ParentRef } from './refs.js';

export const Condition = Type.Object({
  type: Type.String({
    minLength: 1,
    maxLength: 316,
    pattern:
      '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
  }),
  status: StringEnum(['True', 'False', 'Unknown'] as const),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  lastTransitionTime: Type.String({
    maxLength: 64,
    pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$',
  }),
  reason: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
  message: Type.String({ maxLength: 32768 }),
});

export const Conditions = () =>
  Type.Array(Condition, { maxItems: 8, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] });

const ControllerName = () =>
  Type.String({
    minLength: 1,
    maxLength: 253,
    pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+$",
  });

export const ParentStatus = Type.Object({
  parentRef: ParentRef,
  controllerName: ControllerName(),
  conditions: Type.Optional(Conditions()),
});
export const AncestorStatus = Type.Object({
  ancestorRef: ParentRef,
  controllerName: ControllerName(),
  conditions: Type.Optional(Conditions()),
});

export const BackendStatus = Type.Object({ conditions: Type.Optional(Conditions()) });
export const ModelStatus = Type.Object({ parents: Type.Optional(Type.Array(ParentStatus, { maxItems: 16 })) });
export const PolicyStatus = Type.Object({ ancestors: Type.Optional(Type.Array(AncestorStatus, { maxItems: 16 })) });
export const ParametersStatus = Type.Object({ conditions: Type.Optional(Conditions()) });
