// References to other objects, shaped like Gateway API's so users meet familiar fields.
import {
  Type,
  ShortString,
  ObjectName,
  Namespace,
  Port,
  SectionName,
  StringEnum,
  MapOf,
  rules,
  rule,
  oneOf,
  type Static,
} from './schema-kit.js';

const Group = () =>
  Type.String({ maxLength: 253, pattern: '^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$' });
const Kind = () => Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$' });

/** Gateway API BackendObjectReference: a Service by default; cross-namespace needs a ReferenceGrant. */
export const BackendRef = Type.Object(
  {
    group: Type.Optional(Group()),
    kind: Type.Optional(Kind()),
    name: ObjectName(),
    namespace: Type.Optional(Namespace()),
    port: Type.Optional(Port()),
  },
  rules(
    rule(
      "(has(self.kind) && self.kind != 'Service') || has(self.port)",
      'port is required when the reference is to a Service',
      '.port',
    ),
  ),
);
export type BackendRef = Static<typeof BackendRef>;

/** A Service in the referring object's namespace, by name. */
export const LocalServiceRef = Type.Object({ name: ObjectName() });

/** A Secret in the referring object's namespace. */
export const SecretRef = Type.Object({ name: ObjectName() });
export const SecretKeyRef = (defaultKey: string) =>
  Type.Object({ name: ObjectName(), key: Type.Optional(ShortString({ default: defaultKey })) });

/** `backendRef` or `url`, exactly one: how remote services (JWKS, ext auth, OTLP, …) are addressed. */
export const RemoteTarget = {
  backendRef: Type.Optional(BackendRef),
  url: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1024, pattern: '^(https?|grpcs?)://[^\\s/?#@]+(/[^\\s]*)?$' }),
  ),
};
export const remoteTargetRule = oneOf(['backendRef', 'url']);

export const LabelSelector = Type.Object({
  matchLabels: Type.Optional(MapOf(Type.String({ maxLength: 63 }))),
  matchExpressions: Type.Optional(
    Type.Array(
      Type.Object({
        key: ShortString(),
        operator: StringEnum(['In', 'NotIn', 'Exists', 'DoesNotExist'] as const),
        values: Type.Optional(Type.Array(Type.String({ maxLength: 63 }), { maxItems: 64 })),
      }),
      { maxItems: 16 },
    ),
  ),
});

/** Gateway API ParentReference. */
export const ParentRef = Type.Object({
  group: Type.Optional(Group()),
  kind: Type.Optional(Kind()),
  namespace: Type.Optional(Namespace()),
  name: ObjectName(),
  sectionName: Type.Optional(SectionName()),
  port: Type.Optional(Port()),
});

export { Group, Kind };
