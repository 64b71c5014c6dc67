// The IR as the proxy and the loaders use it: the generated `__Output` shapes (every field present,
// enums as names, oneofs with a discriminator). `*Input` are the permissive shapes producers may build.
// Never edit src/ir/gen by hand: change proto/ and run `npx tsx src/ir/generate.ts`.

export type { A2aBackend__Output as A2aBackend, A2aBackend as A2aBackendInput } from './gen/gw/ir/v1/A2aBackend.js';
export type { AiBackend__Output as AiBackend, AiBackend as AiBackendInput } from './gen/gw/ir/v1/AiBackend.js';
export type {
  AuthenticationMode__Output as AuthenticationMode,
  AuthenticationMode as AuthenticationModeInput,
} from './gen/gw/ir/v1/AuthenticationMode.js';
export type {
  Authorization__Output as Authorization,
  Authorization as AuthorizationInput,
} from './gen/gw/ir/v1/Authorization.js';
export type {
  AuthorizationAction__Output as AuthorizationAction,
  AuthorizationAction as AuthorizationActionInput,
} from './gen/gw/ir/v1/AuthorizationAction.js';
export type {
  AuthorizationRule__Output as AuthorizationRule,
  AuthorizationRule as AuthorizationRuleInput,
} from './gen/gw/ir/v1/AuthorizationRule.js';
export type { AwsBackend__Output as AwsBackend, AwsBackend as AwsBackendInput } from './gen/gw/ir/v1/AwsBackend.js';
export type { Backend__Output as Backend, Backend as BackendInput } from './gen/gw/ir/v1/Backend.js';
export type { BackendRef__Output as BackendRef, BackendRef as BackendRefInput } from './gen/gw/ir/v1/BackendRef.js';
export type { BackendTls__Output as BackendTls, BackendTls as BackendTlsInput } from './gen/gw/ir/v1/BackendTls.js';
export type { Bind__Output as Bind, Bind as BindInput } from './gen/gw/ir/v1/Bind.js';
export type { Cors__Output as Cors, Cors as CorsInput } from './gen/gw/ir/v1/Cors.js';
export type {
  DynamicForwardProxyBackend__Output as DynamicForwardProxyBackend,
  DynamicForwardProxyBackend as DynamicForwardProxyBackendInput,
} from './gen/gw/ir/v1/DynamicForwardProxyBackend.js';
export type {
  FailureMode__Output as FailureMode,
  FailureMode as FailureModeInput,
} from './gen/gw/ir/v1/FailureMode.js';
export type { Listener__Output as Listener, Listener as ListenerInput } from './gen/gw/ir/v1/Listener.js';
export type {
  ListenerLimits__Output as ListenerLimits,
  ListenerLimits as ListenerLimitsInput,
} from './gen/gw/ir/v1/ListenerLimits.js';
export type {
  ListenerProtocol__Output as ListenerProtocol,
  ListenerProtocol as ListenerProtocolInput,
} from './gen/gw/ir/v1/ListenerProtocol.js';
export type {
  ListenerTls__Output as ListenerTls,
  ListenerTls as ListenerTlsInput,
} from './gen/gw/ir/v1/ListenerTls.js';
export type {
  McpAuthentication__Output as McpAuthentication,
  McpAuthentication as McpAuthenticationInput,
} from './gen/gw/ir/v1/McpAuthentication.js';
export type { McpBackend__Output as McpBackend, McpBackend as McpBackendInput } from './gen/gw/ir/v1/McpBackend.js';
export type { McpIdp__Output as McpIdp, McpIdp as McpIdpInput } from './gen/gw/ir/v1/McpIdp.js';
export type {
  McpGuardrails__Output as McpGuardrails,
  McpGuardrails as McpGuardrailsInput,
} from './gen/gw/ir/v1/McpGuardrails.js';
export type {
  McpGuardrailPhase__Output as McpGuardrailPhase,
  McpGuardrailPhase as McpGuardrailPhaseInput,
} from './gen/gw/ir/v1/McpGuardrailPhase.js';
export type {
  McpGuardrailProcessor__Output as McpGuardrailProcessor,
  McpGuardrailProcessor as McpGuardrailProcessorInput,
} from './gen/gw/ir/v1/McpGuardrailProcessor.js';
export type { McpTarget__Output as McpTarget, McpTarget as McpTargetInput } from './gen/gw/ir/v1/McpTarget.js';
export type { PathMatch__Output as PathMatch, PathMatch as PathMatchInput } from './gen/gw/ir/v1/PathMatch.js';
export type { Policy__Output as Policy, Policy as PolicyInput } from './gen/gw/ir/v1/Policy.js';
export type { PrefixMode__Output as PrefixMode, PrefixMode as PrefixModeInput } from './gen/gw/ir/v1/PrefixMode.js';
export type {
  RemoteProtocol__Output as RemoteProtocol,
  RemoteProtocol as RemoteProtocolInput,
} from './gen/gw/ir/v1/RemoteProtocol.js';
export type {
  RemoteTarget__Output as RemoteTarget,
  RemoteTarget as RemoteTargetInput,
} from './gen/gw/ir/v1/RemoteTarget.js';
export type { Resource__Output as Resource, Resource as ResourceInput } from './gen/gw/ir/v1/Resource.js';
export type {
  ResourceMetadata__Output as ResourceMetadata,
  ResourceMetadata as ResourceMetadataInput,
} from './gen/gw/ir/v1/ResourceMetadata.js';
export type { Route__Output as Route, Route as RouteInput } from './gen/gw/ir/v1/Route.js';
export type { RouteMatch__Output as RouteMatch, RouteMatch as RouteMatchInput } from './gen/gw/ir/v1/RouteMatch.js';
export type { RouteOrder__Output as RouteOrder, RouteOrder as RouteOrderInput } from './gen/gw/ir/v1/RouteOrder.js';
export type {
  SessionRouting__Output as SessionRouting,
  SessionRouting as SessionRoutingInput,
} from './gen/gw/ir/v1/SessionRouting.js';
export type { Snapshot__Output as Snapshot, Snapshot as SnapshotInput } from './gen/gw/ir/v1/Snapshot.js';
export type {
  StaticBackend__Output as StaticBackend,
  StaticBackend as StaticBackendInput,
} from './gen/gw/ir/v1/StaticBackend.js';
export type {
  StdioTarget__Output as StdioTarget,
  StdioTarget as StdioTargetInput,
} from './gen/gw/ir/v1/StdioTarget.js';
export type { ValueMatch__Output as ValueMatch, ValueMatch as ValueMatchInput } from './gen/gw/ir/v1/ValueMatch.js';
export type {
  TlsCertificate__Output as TlsCertificate,
  TlsCertificate as TlsCertificateInput,
} from './gen/gw/ir/v1/TlsCertificate.js';
export type {
  BufferLimit__Output as BufferLimit,
  BufferLimit as BufferLimitInput,
} from './gen/gw/ir/v1/BufferLimit.js';
export type { Csrf__Output as Csrf, Csrf as CsrfInput } from './gen/gw/ir/v1/Csrf.js';
export type {
  DirectResponse__Output as DirectResponse,
  DirectResponse as DirectResponseInput,
} from './gen/gw/ir/v1/DirectResponse.js';
export type {
  LocalRateLimit__Output as LocalRateLimit,
  LocalRateLimit as LocalRateLimitInput,
} from './gen/gw/ir/v1/LocalRateLimit.js';
export type { Refusal__Output as Refusal, Refusal as RefusalInput } from './gen/gw/ir/v1/Refusal.js';
export type {
  TrafficDelay__Output as TrafficDelay,
  TrafficDelay as TrafficDelayInput,
} from './gen/gw/ir/v1/TrafficDelay.js';
export type {
  TrafficHeaderModifier__Output as TrafficHeaderModifier,
  TrafficHeaderModifier as TrafficHeaderModifierInput,
} from './gen/gw/ir/v1/TrafficHeaderModifier.js';
export type {
  TrafficPolicy__Output as TrafficPolicy,
  TrafficPolicy as TrafficPolicyInput,
} from './gen/gw/ir/v1/TrafficPolicy.js';
export type {
  TrafficRetry__Output as TrafficRetry,
  TrafficRetry as TrafficRetryInput,
} from './gen/gw/ir/v1/TrafficRetry.js';
