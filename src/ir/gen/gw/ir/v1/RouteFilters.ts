// Original file: proto/gw/ir/v1/ir.proto

import type { HeaderModifier as _gw_ir_v1_HeaderModifier, HeaderModifier__Output as _gw_ir_v1_HeaderModifier__Output } from '../../../gw/ir/v1/HeaderModifier.js';
import type { FilterRedirect as _gw_ir_v1_FilterRedirect, FilterRedirect__Output as _gw_ir_v1_FilterRedirect__Output } from '../../../gw/ir/v1/FilterRedirect.js';
import type { FilterUrlRewrite as _gw_ir_v1_FilterUrlRewrite, FilterUrlRewrite__Output as _gw_ir_v1_FilterUrlRewrite__Output } from '../../../gw/ir/v1/FilterUrlRewrite.js';

/**
 * HTTPRoute rule filters (Core: header modifiers, RequestRedirect; Extended: URLRewrite). At most one of
 * `redirect` and `rewrite` is set. Prefix replacement needs the matched prefix: the runtime takes it
 * from the route's `matches` (the translator allows ReplacePrefixMatch only with one PathPrefix match).
 */
export interface RouteFilters {
  'requestHeaders'?: (_gw_ir_v1_HeaderModifier | null);
  'responseHeaders'?: (_gw_ir_v1_HeaderModifier | null);
  /**
   * Set: the proxy answers with a redirect itself and contacts no backend.
   */
  'redirect'?: (_gw_ir_v1_FilterRedirect | null);
  'rewrite'?: (_gw_ir_v1_FilterUrlRewrite | null);
}

/**
 * HTTPRoute rule filters (Core: header modifiers, RequestRedirect; Extended: URLRewrite). At most one of
 * `redirect` and `rewrite` is set. Prefix replacement needs the matched prefix: the runtime takes it
 * from the route's `matches` (the translator allows ReplacePrefixMatch only with one PathPrefix match).
 */
export interface RouteFilters__Output {
  'requestHeaders': (_gw_ir_v1_HeaderModifier__Output | null);
  'responseHeaders': (_gw_ir_v1_HeaderModifier__Output | null);
  /**
   * Set: the proxy answers with a redirect itself and contacts no backend.
   */
  'redirect': (_gw_ir_v1_FilterRedirect__Output | null);
  'rewrite': (_gw_ir_v1_FilterUrlRewrite__Output | null);
}
