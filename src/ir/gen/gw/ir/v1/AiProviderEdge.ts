// Original file: proto/gw/ir/v1/ir.proto

import type { AiCredential as _gw_ir_v1_AiCredential, AiCredential__Output as _gw_ir_v1_AiCredential__Output } from '../../../gw/ir/v1/AiCredential.js';
import type { AiFieldValue as _gw_ir_v1_AiFieldValue, AiFieldValue__Output as _gw_ir_v1_AiFieldValue__Output } from '../../../gw/ir/v1/AiFieldValue.js';
import type { AiPromptMessage as _gw_ir_v1_AiPromptMessage, AiPromptMessage__Output as _gw_ir_v1_AiPromptMessage__Output } from '../../../gw/ir/v1/AiPromptMessage.js';
import type { BackendTls as _gw_ir_v1_BackendTls, BackendTls__Output as _gw_ir_v1_BackendTls__Output } from '../../../gw/ir/v1/BackendTls.js';
import type { UpstreamTunnel as _gw_ir_v1_UpstreamTunnel, UpstreamTunnel__Output as _gw_ir_v1_UpstreamTunnel__Output } from '../../../gw/ir/v1/UpstreamTunnel.js';
import type { UpstreamTcp as _gw_ir_v1_UpstreamTcp, UpstreamTcp__Output as _gw_ir_v1_UpstreamTcp__Output } from '../../../gw/ir/v1/UpstreamTcp.js';

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
   * `backend.tunnel` of the provider's merged policies: its connections go through this forward proxy.
   */
  'tunnel'?: (_gw_ir_v1_UpstreamTunnel | null);
  /**
   * `backend.tcp` of the provider's merged policies: how its connections are dialled.
   */
  'tcp'?: (_gw_ir_v1_UpstreamTcp | null);
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
   * `backend.tunnel` of the provider's merged policies: its connections go through this forward proxy.
   */
  'tunnel': (_gw_ir_v1_UpstreamTunnel__Output | null);
  /**
   * `backend.tcp` of the provider's merged policies: how its connections are dialled.
   */
  'tcp': (_gw_ir_v1_UpstreamTcp__Output | null);
}
