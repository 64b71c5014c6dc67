// Original file: proto/gw/ir/v1/ir.proto

import type { AiCredential as _gw_ir_v1_AiCredential, AiCredential__Output as _gw_ir_v1_AiCredential__Output } from '../../../gw/ir/v1/AiCredential.js';
import type { AiFieldValue as _gw_ir_v1_AiFieldValue, AiFieldValue__Output as _gw_ir_v1_AiFieldValue__Output } from '../../../gw/ir/v1/AiFieldValue.js';
import type { AiPromptMessage as _gw_ir_v1_AiPromptMessage, AiPromptMessage__Output as _gw_ir_v1_AiPromptMessage__Output } from '../../../gw/ir/v1/AiPromptMessage.js';
import type { BackendTls as _gw_ir_v1_BackendTls, BackendTls__Output as _gw_ir_v1_BackendTls__Output } from '../../../gw/ir/v1/BackendTls.js';
import type { OutlierDetection as _gw_ir_v1_OutlierDetection, OutlierDetection__Output as _gw_ir_v1_OutlierDetection__Output } from '../../../gw/ir/v1/OutlierDetection.js';
import type { ExtAuthorization as _gw_ir_v1_ExtAuthorization, ExtAuthorization__Output as _gw_ir_v1_ExtAuthorization__Output } from '../../../gw/ir/v1/ExtAuthorization.js';
import type { AiFieldTransformation as _gw_ir_v1_AiFieldTransformation, AiFieldTransformation__Output as _gw_ir_v1_AiFieldTransformation__Output } from '../../../gw/ir/v1/AiFieldTransformation.js';
import type { AiPromptCaching as _gw_ir_v1_AiPromptCaching, AiPromptCaching__Output as _gw_ir_v1_AiPromptCaching__Output } from '../../../gw/ir/v1/AiPromptCaching.js';
import type { UpstreamTunnel as _gw_ir_v1_UpstreamTunnel, UpstreamTunnel__Output as _gw_ir_v1_UpstreamTunnel__Output } from '../../../gw/ir/v1/UpstreamTunnel.js';
import type { UpstreamTcp as _gw_ir_v1_UpstreamTcp, UpstreamTcp__Output as _gw_ir_v1_UpstreamTcp__Output } from '../../../gw/ir/v1/UpstreamTcp.js';
import type { HttpVersion as _gw_ir_v1_HttpVersion, HttpVersion__Output as _gw_ir_v1_HttpVersion__Output } from '../../../gw/ir/v1/HttpVersion.js';
import type { Transformation as _gw_ir_v1_Transformation, Transformation__Output as _gw_ir_v1_Transformation__Output } from '../../../gw/ir/v1/Transformation.js';

export interface AiProviderEdge {
  /**
   * Unset means requests go upstream without credentials (e.g. a custom provider that needs none).
   */
  'credential'?: (_gw_ir_v1_AiCredential | null);
  /**
   * Requested model → upstream model (`backend.ai.modelAliases`).
   */
  'modelAliases'?: ({[key: string]: string});
  /**
   * Fields set only when the client did not set them (`backend.ai.defaults`).
   */
  'defaults'?: (_gw_ir_v1_AiFieldValue)[];
  /**
   * Fields always set (`backend.ai.overrides`).
   */
  'overrides'?: (_gw_ir_v1_AiFieldValue)[];
  /**
   * Messages put before and after the client's (`backend.ai.prompt`).
   */
  'promptPrepend'?: (_gw_ir_v1_AiPromptMessage)[];
  'promptAppend'?: (_gw_ir_v1_AiPromptMessage)[];
  /**
   * TLS to this provider from its merged `backend.tls` (the provider's own policies included); unset
   * means the edge's BackendRef.tls, else HTTPS with system roots on port 443 and plain HTTP otherwise.
   */
  'tls'?: (_gw_ir_v1_BackendTls | null);
  /**
   * `backend.http.requestTimeout` of the provider's merged policies, in ms; 0 means none.
   */
  'requestTimeoutMs'?: (number);
  /**
   * `backend.health` of the provider's merged policies; unset means the proxy's default LLM backoff.
   */
  'health'?: (_gw_ir_v1_OutlierDetection | null);
  /**
   * `backend.extAuth` of this provider (its own policies or a sectionName-targeted one) when the route's providers
   * differ on it: asked before each try of this provider (failover asks the next provider's). Unset: none for this
   * provider. The route-wide Policy.backend_ext_authorization carries a setting all providers share instead.
   */
  'extAuthorization'?: (_gw_ir_v1_ExtAuthorization | null);
  /**
   * `backend.ai.transformations`: CEL per field on the client-format chat request (after defaults,
   * overrides, prompt enrichment and the provider's model, so they outrank all of them).
   */
  'transformations'?: (_gw_ir_v1_AiFieldTransformation)[];
  /**
   * `backend.ai.finalTransformations`: CEL per field on the body in the provider's format (after conversion).
   */
  'finalTransformations'?: (_gw_ir_v1_AiFieldTransformation)[];
  /**
   * `backend.ai.promptCaching`: cache breakpoints the proxy places for Anthropic and Bedrock providers;
   * unset means none (src/proxy/llm/prompt-caching.ts).
   */
  'promptCaching'?: (_gw_ir_v1_AiPromptCaching | null);
  /**
   * `backend.tunnel` of the provider's merged policies: its connections go through this forward proxy.
   */
  'tunnel'?: (_gw_ir_v1_UpstreamTunnel | null);
  /**
   * `backend.tcp` of the provider's merged policies: how its connections are dialled.
   */
  'tcp'?: (_gw_ir_v1_UpstreamTcp | null);
  /**
   * `backend.http.version` of the provider's merged policies: HTTP2 calls it over HTTP/2 (ALPN h2 on https,
   * prior knowledge on http) by the code of BackendRef.http_version; unset or HTTP1 speaks HTTP/1.1.
   */
  'httpVersion'?: (_gw_ir_v1_HttpVersion);
  /**
   * `backend.transformation` of the provider's merged policies (its own, or the edge's): the request step on
   * each call to this provider (after its body is converted, before its credential is added), the response
   * step's header edits on the answer the client gets from it. A response step never reads the body here.
   */
  'transformation'?: (_gw_ir_v1_Transformation | null);
}

export interface AiProviderEdge__Output {
  /**
   * Unset means requests go upstream without credentials (e.g. a custom provider that needs none).
   */
  'credential': (_gw_ir_v1_AiCredential__Output | null);
  /**
   * Requested model → upstream model (`backend.ai.modelAliases`).
   */
  'modelAliases': ({[key: string]: string});
  /**
   * Fields set only when the client did not set them (`backend.ai.defaults`).
   */
  'defaults': (_gw_ir_v1_AiFieldValue__Output)[];
  /**
   * Fields always set (`backend.ai.overrides`).
   */
  'overrides': (_gw_ir_v1_AiFieldValue__Output)[];
  /**
   * Messages put before and after the client's (`backend.ai.prompt`).
   */
  'promptPrepend': (_gw_ir_v1_AiPromptMessage__Output)[];
  'promptAppend': (_gw_ir_v1_AiPromptMessage__Output)[];
  /**
   * TLS to this provider from its merged `backend.tls` (the provider's own policies included); unset
   * means the edge's BackendRef.tls, else HTTPS with system roots on port 443 and plain HTTP otherwise.
   */
  'tls': (_gw_ir_v1_BackendTls__Output | null);
  /**
   * `backend.http.requestTimeout` of the provider's merged policies, in ms; 0 means none.
   */
  'requestTimeoutMs': (number);
  /**
   * `backend.health` of the provider's merged policies; unset means the proxy's default LLM backoff.
   */
  'health': (_gw_ir_v1_OutlierDetection__Output | null);
  /**
   * `backend.extAuth` of this provider (its own policies or a sectionName-targeted one) when the route's providers
   * differ on it: asked before each try of this provider (failover asks the next provider's). Unset: none for this
   * provider. The route-wide Policy.backend_ext_authorization carries a setting all providers share instead.
   */
  'extAuthorization': (_gw_ir_v1_ExtAuthorization__Output | null);
  /**
   * `backend.ai.transformations`: CEL per field on the client-format chat request (after defaults,
   * overrides, prompt enrichment and the provider's model, so they outrank all of them).
   */
  'transformations': (_gw_ir_v1_AiFieldTransformation__Output)[];
  /**
   * `backend.ai.finalTransformations`: CEL per field on the body in the provider's format (after conversion).
   */
  'finalTransformations': (_gw_ir_v1_AiFieldTransformation__Output)[];
  /**
   * `backend.ai.promptCaching`: cache breakpoints the proxy places for Anthropic and Bedrock providers;
   * unset means none (src/proxy/llm/prompt-caching.ts).
   */
  'promptCaching': (_gw_ir_v1_AiPromptCaching__Output | null);
  /**
   * `backend.tunnel` of the provider's merged policies: its connections go through this forward proxy.
   */
  'tunnel': (_gw_ir_v1_UpstreamTunnel__Output | null);
  /**
   * `backend.tcp` of the provider's merged policies: how its connections are dialled.
   */
  'tcp': (_gw_ir_v1_UpstreamTcp__Output | null);
  /**
   * `backend.http.version` of the provider's merged policies: HTTP2 calls it over HTTP/2 (ALPN h2 on https,
   * prior knowledge on http) by the code of BackendRef.http_version; unset or HTTP1 speaks HTTP/1.1.
   */
  'httpVersion': (_gw_ir_v1_HttpVersion__Output);
  /**
   * `backend.transformation` of the provider's merged policies (its own, or the edge's): the request step on
   * each call to this provider (after its body is converted, before its credential is added), the response
   * step's header edits on the answer the client gets from it. A response step never reads the body here.
   */
  'transformation': (_gw_ir_v1_Transformation__Output | null);
}
