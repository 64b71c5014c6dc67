// Original file: proto/gw/ir/v1/ir.proto

import type { PolicyFields as _gw_ir_v1_PolicyFields, PolicyFields__Output as _gw_ir_v1_PolicyFields__Output } from '../../../gw/ir/v1/PolicyFields.js';
import type { BackendTls as _gw_ir_v1_BackendTls, BackendTls__Output as _gw_ir_v1_BackendTls__Output } from '../../../gw/ir/v1/BackendTls.js';
import type { AiEdge as _gw_ir_v1_AiEdge, AiEdge__Output as _gw_ir_v1_AiEdge__Output } from '../../../gw/ir/v1/AiEdge.js';
import type { PromptGuard as _gw_ir_v1_PromptGuard, PromptGuard__Output as _gw_ir_v1_PromptGuard__Output } from '../../../gw/ir/v1/PromptGuard.js';
import type { McpGuardrails as _gw_ir_v1_McpGuardrails, McpGuardrails__Output as _gw_ir_v1_McpGuardrails__Output } from '../../../gw/ir/v1/McpGuardrails.js';
import type { AiCredential as _gw_ir_v1_AiCredential, AiCredential__Output as _gw_ir_v1_AiCredential__Output } from '../../../gw/ir/v1/AiCredential.js';
import type { HttpVersion as _gw_ir_v1_HttpVersion, HttpVersion__Output as _gw_ir_v1_HttpVersion__Output } from '../../../gw/ir/v1/HttpVersion.js';
import type { Refusal as _gw_ir_v1_Refusal, Refusal__Output as _gw_ir_v1_Refusal__Output } from '../../../gw/ir/v1/Refusal.js';
import type { UpstreamTunnel as _gw_ir_v1_UpstreamTunnel, UpstreamTunnel__Output as _gw_ir_v1_UpstreamTunnel__Output } from '../../../gw/ir/v1/UpstreamTunnel.js';
import type { UpstreamTcp as _gw_ir_v1_UpstreamTcp, UpstreamTcp__Output as _gw_ir_v1_UpstreamTcp__Output } from '../../../gw/ir/v1/UpstreamTcp.js';
import type { OutlierDetection as _gw_ir_v1_OutlierDetection, OutlierDetection__Output as _gw_ir_v1_OutlierDetection__Output } from '../../../gw/ir/v1/OutlierDetection.js';
import type { Transformation as _gw_ir_v1_Transformation, Transformation__Output as _gw_ir_v1_Transformation__Output } from '../../../gw/ir/v1/Transformation.js';
import type { ExtAuthorization as _gw_ir_v1_ExtAuthorization, ExtAuthorization__Output as _gw_ir_v1_ExtAuthorization__Output } from '../../../gw/ir/v1/ExtAuthorization.js';

export interface BackendRef {
  /**
   * Name of the Backend resource.
   */
  'backend'?: (string);
  /**
   * Relative weight; 0 means the backend receives no traffic. A single ref with weight 0 is treated as 1.
   */
  'weight'?: (number);
  /**
   * Effective backend policy of this route → backend edge, as merged JSON fields (`gw explain`; never sent
   * to proxies, like Route.effective).
   */
  'policy'?: (_gw_ir_v1_PolicyFields | null);
  /**
   * The same per MCP target / AI provider name.
   */
  'targetPolicies'?: ({[key: string]: _gw_ir_v1_PolicyFields});
  /**
   * TLS to the backend, resolved from the edge's `backend.tls` policy; unset means plain HTTP.
   */
  'tls'?: (_gw_ir_v1_BackendTls | null);
  /**
   * LLM settings of an edge to an `ai` backend, resolved from `backend.auth` and `backend.ai`.
   */
  'ai'?: (_gw_ir_v1_AiEdge | null);
  /**
   * Prompt guards from the edge's `backend.ai.promptGuard`, resolved; unset means none.
   */
  'promptGuard'?: (_gw_ir_v1_PromptGuard | null);
  /**
   * `backend.mcp.guardrails` of this edge with references resolved; unset means no processors.
   */
  'mcpGuardrails'?: (_gw_ir_v1_McpGuardrails | null);
  /**
   * `backend.auth` of an edge to a non-`ai` backend, resolved: sent on every upstream request.
   * Secret like AiCredential.key: never log it.
   */
  'credential'?: (_gw_ir_v1_AiCredential | null);
  /**
   * MCP target name → the credential of that target (its own or sectionName-targeted `backend.auth`).
   */
  'targetCredentials'?: ({[key: string]: _gw_ir_v1_AiCredential});
  /**
   * MCP target name → TLS to that target from its own `policies.tls` (or sectionName-targeted
   * `backend.tls`); a target without an entry uses `tls`. The target is then dialled over https.
   */
  'targetTls'?: ({[key: string]: _gw_ir_v1_BackendTls});
  /**
   * `backend.http.version` of an edge to an HTTP backend (static, a2a, dynamicForwardProxy) or to an MCP
   * backend (each remote target without an entry in target_http_versions): HTTP2 speaks HTTP/2 upstream
   * (prior knowledge on http, ALPN h2 on https); unset or HTTP1 speaks HTTP/1.1.
   */
  'httpVersion'?: (_gw_ir_v1_HttpVersion);
  /**
   * Refused fields of this edge's backend policy (diagnostics; the route's `refusals` carries them too).
   */
  'refusals'?: (_gw_ir_v1_Refusal)[];
  /**
   * `backend.tunnel` of an edge to a static, a2a, Service or MCP backend: its connections go through this forward proxy.
   */
  'tunnel'?: (_gw_ir_v1_UpstreamTunnel | null);
  /**
   * `backend.tcp` of an edge to a static, a2a, Service or MCP backend: how its connections are dialled.
   */
  'tcp'?: (_gw_ir_v1_UpstreamTcp | null);
  /**
   * `backend.health` of an edge to an HTTP or MCP backend: the route's HTTP backends (or the MCP backend's
   * targets) form one pool whose failing members are ejected (docs/proxy.md "Passive health"); unset means no ejection.
   */
  'health'?: (_gw_ir_v1_OutlierDetection | null);
  /**
   * `backend.transformation` of an edge to an HTTP backend: applied after the route's request
   * transformation and before its response one.
   */
  'transformation'?: (_gw_ir_v1_Transformation | null);
  /**
   * MCP target name → the forward proxy of that target from its own `policies.tunnel` (or a
   * sectionName-targeted `backend.tunnel`); a target without an entry uses `tunnel`.
   */
  'targetTunnels'?: ({[key: string]: _gw_ir_v1_UpstreamTunnel});
  /**
   * MCP target name → its own `policies.tcp`; a target without an entry uses `tcp`.
   */
  'targetTcp'?: ({[key: string]: _gw_ir_v1_UpstreamTcp});
  /**
   * `backend.extAuth` of this edge when the route's edges (or an MCP edge's targets) differ; a setting they all
   * share is Policy.backend_ext_authorization instead. Asked once the weighted pick chose this edge (HTTP
   * backends), or before each call to a target of this edge without an entry in target_ext_authorization (MCP).
   */
  'extAuthorization'?: (_gw_ir_v1_ExtAuthorization | null);
  /**
   * MCP target name → that target's own `backend.extAuth` (its `policies.extAuth` or a sectionName-targeted
   * GwPolicy), asked before each client request the target serves; a target without an entry uses ext_authorization.
   */
  'targetExtAuthorization'?: ({[key: string]: _gw_ir_v1_ExtAuthorization});
  /**
   * MCP target name → its own `policies.health` (or a sectionName-targeted `backend.health`); a target
   * without an entry uses `health`. An MCP edge's targets form one pool (docs/proxy.md "Passive health").
   */
  'targetHealth'?: ({[key: string]: _gw_ir_v1_OutlierDetection});
  /**
   * `backend.http.requestTimeout` of an edge to an HTTP backend (static, a2a, Service, dynamicForwardProxy,
   * AgentCore), in ms: each try's deadline when the route sets no `timeouts.backendRequest`; 0 means none.
   * On an MCP edge: the bound of each call to a target without an entry in target_request_timeout_ms.
   */
  'requestTimeoutMs'?: (number);
  /**
   * MCP target name → its own `policies.http.requestTimeout` (or a sectionName-targeted `backend.http`), in ms:
   * the bound of each call to that target when the route sets no `timeouts`.
   */
  'targetRequestTimeoutMs'?: ({[key: string]: number});
  /**
   * MCP target name → its own `policies.http.version` (or a sectionName-targeted `backend.http`); a target
   * without an entry uses http_version. HTTP2 speaks HTTP/2 to the target (prior knowledge on http, ALPN h2
   * on https), HTTP1 HTTP/1.1 only (h2 left out of the ALPN list).
   */
  'targetHttpVersions'?: ({[key: string]: _gw_ir_v1_HttpVersion});
}

export interface BackendRef__Output {
  /**
   * Name of the Backend resource.
   */
  'backend': (string);
  /**
   * Relative weight; 0 means the backend receives no traffic. A single ref with weight 0 is treated as 1.
   */
  'weight': (number);
  /**
   * Effective backend policy of this route → backend edge, as merged JSON fields (`gw explain`; never sent
   * to proxies, like Route.effective).
   */
  'policy': (_gw_ir_v1_PolicyFields__Output | null);
  /**
   * The same per MCP target / AI provider name.
   */
  'targetPolicies': ({[key: string]: _gw_ir_v1_PolicyFields__Output});
  /**
   * TLS to the backend, resolved from the edge's `backend.tls` policy; unset means plain HTTP.
   */
  'tls': (_gw_ir_v1_BackendTls__Output | null);
  /**
   * LLM settings of an edge to an `ai` backend, resolved from `backend.auth` and `backend.ai`.
   */
  'ai': (_gw_ir_v1_AiEdge__Output | null);
  /**
   * Prompt guards from the edge's `backend.ai.promptGuard`, resolved; unset means none.
   */
  'promptGuard': (_gw_ir_v1_PromptGuard__Output | null);
  /**
   * `backend.mcp.guardrails` of this edge with references resolved; unset means no processors.
   */
  'mcpGuardrails': (_gw_ir_v1_McpGuardrails__Output | null);
  /**
   * `backend.auth` of an edge to a non-`ai` backend, resolved: sent on every upstream request.
   * Secret like AiCredential.key: never log it.
   */
  'credential': (_gw_ir_v1_AiCredential__Output | null);
  /**
   * MCP target name → the credential of that target (its own or sectionName-targeted `backend.auth`).
   */
  'targetCredentials': ({[key: string]: _gw_ir_v1_AiCredential__Output});
  /**
   * MCP target name → TLS to that target from its own `policies.tls` (or sectionName-targeted
   * `backend.tls`); a target without an entry uses `tls`. The target is then dialled over https.
   */
  'targetTls': ({[key: string]: _gw_ir_v1_BackendTls__Output});
  /**
   * `backend.http.version` of an edge to an HTTP backend (static, a2a, dynamicForwardProxy) or to an MCP
   * backend (each remote target without an entry in target_http_versions): HTTP2 speaks HTTP/2 upstream
   * (prior knowledge on http, ALPN h2 on https); unset or HTTP1 speaks HTTP/1.1.
   */
  'httpVersion': (_gw_ir_v1_HttpVersion__Output);
  /**
   * Refused fields of this edge's backend policy (diagnostics; the route's `refusals` carries them too).
   */
  'refusals': (_gw_ir_v1_Refusal__Output)[];
  /**
   * `backend.tunnel` of an edge to a static, a2a, Service or MCP backend: its connections go through this forward proxy.
   */
  'tunnel': (_gw_ir_v1_UpstreamTunnel__Output | null);
  /**
   * `backend.tcp` of an edge to a static, a2a, Service or MCP backend: how its connections are dialled.
   */
  'tcp': (_gw_ir_v1_UpstreamTcp__Output | null);
  /**
   * `backend.health` of an edge to an HTTP or MCP backend: the route's HTTP backends (or the MCP backend's
   * targets) form one pool whose failing members are ejected (docs/proxy.md "Passive health"); unset means no ejection.
   */
  'health': (_gw_ir_v1_OutlierDetection__Output | null);
  /**
   * `backend.transformation` of an edge to an HTTP backend: applied after the route's request
   * transformation and before its response one.
   */
  'transformation': (_gw_ir_v1_Transformation__Output | null);
  /**
   * MCP target name → the forward proxy of that target from its own `policies.tunnel` (or a
   * sectionName-targeted `backend.tunnel`); a target without an entry uses `tunnel`.
   */
  'targetTunnels': ({[key: string]: _gw_ir_v1_UpstreamTunnel__Output});
  /**
   * MCP target name → its own `policies.tcp`; a target without an entry uses `tcp`.
   */
  'targetTcp': ({[key: string]: _gw_ir_v1_UpstreamTcp__Output});
  /**
   * `backend.extAuth` of this edge when the route's edges (or an MCP edge's targets) differ; a setting they all
   * share is Policy.backend_ext_authorization instead. Asked once the weighted pick chose this edge (HTTP
   * backends), or before each call to a target of this edge without an entry in target_ext_authorization (MCP).
   */
  'extAuthorization': (_gw_ir_v1_ExtAuthorization__Output | null);
  /**
   * MCP target name → that target's own `backend.extAuth` (its `policies.extAuth` or a sectionName-targeted
   * GwPolicy), asked before each client request the target serves; a target without an entry uses ext_authorization.
   */
  'targetExtAuthorization': ({[key: string]: _gw_ir_v1_ExtAuthorization__Output});
  /**
   * MCP target name → its own `policies.health` (or a sectionName-targeted `backend.health`); a target
   * without an entry uses `health`. An MCP edge's targets form one pool (docs/proxy.md "Passive health").
   */
  'targetHealth': ({[key: string]: _gw_ir_v1_OutlierDetection__Output});
  /**
   * `backend.http.requestTimeout` of an edge to an HTTP backend (static, a2a, Service, dynamicForwardProxy,
   * AgentCore), in ms: each try's deadline when the route sets no `timeouts.backendRequest`; 0 means none.
   * On an MCP edge: the bound of each call to a target without an entry in target_request_timeout_ms.
   */
  'requestTimeoutMs': (number);
  /**
   * MCP target name → its own `policies.http.requestTimeout` (or a sectionName-targeted `backend.http`), in ms:
   * the bound of each call to that target when the route sets no `timeouts`.
   */
  'targetRequestTimeoutMs': ({[key: string]: number});
  /**
   * MCP target name → its own `policies.http.version` (or a sectionName-targeted `backend.http`); a target
   * without an entry uses http_version. HTTP2 speaks HTTP/2 to the target (prior knowledge on http, ALPN h2
   * on https), HTTP1 HTTP/1.1 only (h2 left out of the ALPN list).
   */
  'targetHttpVersions': ({[key: string]: _gw_ir_v1_HttpVersion__Output});
}
