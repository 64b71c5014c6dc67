// Original file: proto/gw/ir/v1/traffic.proto

import type { TrafficTimeouts as _gw_ir_v1_TrafficTimeouts, TrafficTimeouts__Output as _gw_ir_v1_TrafficTimeouts__Output } from '../../../gw/ir/v1/TrafficTimeouts.js';
import type { TrafficRetry as _gw_ir_v1_TrafficRetry, TrafficRetry__Output as _gw_ir_v1_TrafficRetry__Output } from '../../../gw/ir/v1/TrafficRetry.js';
import type { HeaderModifier as _gw_ir_v1_HeaderModifier, HeaderModifier__Output as _gw_ir_v1_HeaderModifier__Output } from '../../../gw/ir/v1/HeaderModifier.js';
import type { LocalRateLimit as _gw_ir_v1_LocalRateLimit, LocalRateLimit__Output as _gw_ir_v1_LocalRateLimit__Output } from '../../../gw/ir/v1/LocalRateLimit.js';
import type { DirectResponse as _gw_ir_v1_DirectResponse, DirectResponse__Output as _gw_ir_v1_DirectResponse__Output } from '../../../gw/ir/v1/DirectResponse.js';
import type { TrafficDelay as _gw_ir_v1_TrafficDelay, TrafficDelay__Output as _gw_ir_v1_TrafficDelay__Output } from '../../../gw/ir/v1/TrafficDelay.js';
import type { BufferLimit as _gw_ir_v1_BufferLimit, BufferLimit__Output as _gw_ir_v1_BufferLimit__Output } from '../../../gw/ir/v1/BufferLimit.js';
import type { Csrf as _gw_ir_v1_Csrf, Csrf__Output as _gw_ir_v1_Csrf__Output } from '../../../gw/ir/v1/Csrf.js';
import type { Transformation as _gw_ir_v1_Transformation, Transformation__Output as _gw_ir_v1_Transformation__Output } from '../../../gw/ir/v1/Transformation.js';

/**
 * The route's effective traffic policy, typed; unset means none of these settings.
 */
export interface TrafficPolicy {
  /**
   * spec.traffic.timeouts
   */
  'timeouts'?: (_gw_ir_v1_TrafficTimeouts | null);
  /**
   * spec.traffic.retry; unset (or attempts 0) means no retry.
   */
  'retry'?: (_gw_ir_v1_TrafficRetry | null);
  /**
   * spec.traffic.headerModifiers.request
   */
  'requestHeaders'?: (_gw_ir_v1_HeaderModifier | null);
  /**
   * spec.traffic.headerModifiers.response
   */
  'responseHeaders'?: (_gw_ir_v1_HeaderModifier | null);
  /**
   * spec.traffic.rateLimit.local: each entry its own bucket; a request must fit all of them.
   */
  'localRateLimits'?: (_gw_ir_v1_LocalRateLimit)[];
  /**
   * spec.traffic.directResponse
   */
  'directResponse'?: (_gw_ir_v1_DirectResponse | null);
  /**
   * spec.traffic.delay
   */
  'delay'?: (_gw_ir_v1_TrafficDelay | null);
  /**
   * spec.traffic.hostRewrite: the Host header sent to the backend.
   */
  'hostRewrite'?: (string);
  /**
   * spec.traffic.buffer.request
   */
  'requestBuffer'?: (_gw_ir_v1_BufferLimit | null);
  /**
   * spec.traffic.buffer.response
   */
  'responseBuffer'?: (_gw_ir_v1_BufferLimit | null);
  /**
   * spec.traffic.csrf: set means unsafe cross-site requests are refused.
   */
  'csrf'?: (_gw_ir_v1_Csrf | null);
  /**
   * spec.traffic.transformation: CEL header and body edits of forwarded HTTP requests and answers.
   */
  'transformation'?: (_gw_ir_v1_Transformation | null);
  '_hostRewrite'?: "hostRewrite";
}

/**
 * The route's effective traffic policy, typed; unset means none of these settings.
 */
export interface TrafficPolicy__Output {
  /**
   * spec.traffic.timeouts
   */
  'timeouts': (_gw_ir_v1_TrafficTimeouts__Output | null);
  /**
   * spec.traffic.retry; unset (or attempts 0) means no retry.
   */
  'retry': (_gw_ir_v1_TrafficRetry__Output | null);
  /**
   * spec.traffic.headerModifiers.request
   */
  'requestHeaders': (_gw_ir_v1_HeaderModifier__Output | null);
  /**
   * spec.traffic.headerModifiers.response
   */
  'responseHeaders': (_gw_ir_v1_HeaderModifier__Output | null);
  /**
   * spec.traffic.rateLimit.local: each entry its own bucket; a request must fit all of them.
   */
  'localRateLimits': (_gw_ir_v1_LocalRateLimit__Output)[];
  /**
   * spec.traffic.directResponse
   */
  'directResponse': (_gw_ir_v1_DirectResponse__Output | null);
  /**
   * spec.traffic.delay
   */
  'delay': (_gw_ir_v1_TrafficDelay__Output | null);
  /**
   * spec.traffic.hostRewrite: the Host header sent to the backend.
   */
  'hostRewrite'?: (string);
  /**
   * spec.traffic.buffer.request
   */
  'requestBuffer': (_gw_ir_v1_BufferLimit__Output | null);
  /**
   * spec.traffic.buffer.response
   */
  'responseBuffer': (_gw_ir_v1_BufferLimit__Output | null);
  /**
   * spec.traffic.csrf: set means unsafe cross-site requests are refused.
   */
  'csrf': (_gw_ir_v1_Csrf__Output | null);
  /**
   * spec.traffic.transformation: CEL header and body edits of forwarded HTTP requests and answers.
   */
  'transformation': (_gw_ir_v1_Transformation__Output | null);
  '_hostRewrite'?: "hostRewrite";
}
