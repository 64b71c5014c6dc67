// GwPolicy: frontend, traffic and backend settings attached to Gateway API objects (seed 001 "GwPolicy").
import {
  doc,
  Type,
  ObjectName,
  SectionName,
  Port,
  StringEnum,
  MapOf,
  rules,
  rule,
  oneOf,
  atMostOne,
  type Static,
} from './schema-kit.js';
import { Group, Kind } from './refs.js';
import { Frontend } from './frontend.js';
import { TrafficPolicy } from './traffic.js';
import { BackendFull } from './backend-policies.js';

const sectionOrPort = atMostOne(['sectionName', 'port']);
export const PolicyTargetRef = Type.Object(
  {
    group: Group(),
    kind: Kind(),
    name: ObjectName(),
    sectionName: Type.Optional(SectionName()),
    port: Type.Optional(Port()),
  },
  rules(sectionOrPort),
);
export const PolicyTargetSelector = Type.Object(
  {
    group: Group(),
    kind: Kind(),
    matchLabels: MapOf(Type.String({ maxLength: 63 }), { minProperties: 1 }),
    sectionName: Type.Optional(SectionName()),
    port: Type.Optional(Port()),
  },
  rules(sectionOrPort),
);

export const FRONTEND_TARGET_KINDS = ['Gateway'] as const;
export const TRAFFIC_TARGET_KINDS = ['Gateway', 'ListenerSet', 'HTTPRoute', 'GRPCRoute'] as const;
export const BACKEND_TARGET_KINDS = [
  'Gateway',
  'ListenerSet',
  'HTTPRoute',
  'GRPCRoute',
  'TCPRoute',
  'TLSRoute',
  'Service',
  'GwBackend',
] as const;

const kindsList = (kinds: readonly string[]) => `[${kinds.map((k) => `'${k}'`).join(', ')}]`;
/** Every target (by ref or selector) of a policy that sets `section` must have one of `kinds`. */
function targetsOnly(section: string, kinds: readonly string[], what: string) {
  const k = kindsList(kinds);
  return rule(
    `!has(self.${section}) || ((!has(self.targetRefs) || self.targetRefs.all(t, t.kind in ${k})) && (!has(self.targetSelectors) || self.targetSelectors.all(t, t.kind in ${k})))`,
    `a policy with ${section} settings can target only ${what}`,
  );
}
const portOnlyFrontend = (list: string) =>
  rule(
    `!has(self.${list}) || self.${list}.all(t, !has(t.port) || (t.kind == 'Gateway' && has(self.frontend) && !has(self.traffic) && !has(self.backend)))`,
    `${list}[].port may only be set on a frontend-only policy that targets a Gateway`,
    `.${list}`,
  );

export const GwPolicySpec = Type.Object(
  {
    targetRefs: Type.Optional(
      doc(Type.Array(PolicyTargetRef, { minItems: 1, maxItems: 16 }), 'Objects the policy attaches to, by name.'),
    ),
    targetSelectors: Type.Optional(
      doc(
        Type.Array(PolicyTargetSelector, { minItems: 1, maxItems: 16 }),
        'Objects the policy attaches to, by labels.',
      ),
    ),
    strategy: Type.Optional(
      doc(
        Type.Object({
          merge: Type.Optional(StringEnum(['Merge', 'Replace'] as const, { default: 'Merge' })),
          inheritance: Type.Optional(StringEnum(['Default', 'Override'] as const)),
        }),
        'How this policy merges with policies at other levels.',
      ),
    ),
    frontend: Type.Optional(
      doc(Frontend, 'Downstream settings of a Gateway (TCP, TLS, HTTP, access log, tracing, metrics).'),
    ),
    traffic: Type.Optional(
      doc(
        TrafficPolicy,
        'Request handling: authentication, authorization, rate limits, CORS, transformations and more.',
      ),
    ),
    backend: Type.Optional(
      doc(BackendFull, 'Upstream settings: connection, TLS, authentication, AI and MCP processing.'),
    ),
  },
  rules(
    oneOf(['targetRefs', 'targetSelectors']),
    targetsOnly('frontend', FRONTEND_TARGET_KINDS, 'a Gateway'),
    targetsOnly('traffic', TRAFFIC_TARGET_KINDS, 'a Gateway, ListenerSet, HTTPRoute or GRPCRoute'),
    targetsOnly('backend', BACKEND_TARGET_KINDS, 'a Gateway, ListenerSet, route, Service or GwBackend'),
    portOnlyFrontend('targetRefs'),
    portOnlyFrontend('targetSelectors'),
    rule(
      '!has(self.strategy) || !has(self.strategy.inheritance) || has(self.traffic)',
      'strategy.inheritance is valid only on a policy with traffic settings',
      '.strategy.inheritance',
    ),
  ),
);
export type GwPolicySpec = Static<typeof GwPolicySpec>;
