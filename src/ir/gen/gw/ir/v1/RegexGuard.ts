// Original file: proto/gw/ir/v1/ir_translate.proto

import type { RegexGuardPattern as _gw_ir_v1_RegexGuardPattern, RegexGuardPattern__Output as _gw_ir_v1_RegexGuardPattern__Output } from '../../../gw/ir/v1/RegexGuardPattern.js';
import type { RegexGuardAction as _gw_ir_v1_RegexGuardAction, RegexGuardAction__Output as _gw_ir_v1_RegexGuardAction__Output } from '../../../gw/ir/v1/RegexGuardAction.js';
import type { ContentScope as _gw_ir_v1_ContentScope, ContentScope__Output as _gw_ir_v1_ContentScope__Output } from '../../../gw/ir/v1/ContentScope.js';

export interface RegexGuard {
  /**
   * Builtins already expanded; searched (not whole-value) in ECMAScript syntax.
   */
  'patterns'?: (_gw_ir_v1_RegexGuardPattern)[];
  'action'?: (_gw_ir_v1_RegexGuardAction);
  /**
   * Never empty: the translator fills in the default (every scope).
   */
  'scopes'?: (_gw_ir_v1_ContentScope)[];
  /**
   * Answer for REJECT (CustomResponse with its defaults applied).
   */
  'rejectStatus'?: (number);
  'rejectMessage'?: (string);
}

export interface RegexGuard__Output {
  /**
   * Builtins already expanded; searched (not whole-value) in ECMAScript syntax.
   */
  'patterns': (_gw_ir_v1_RegexGuardPattern__Output)[];
  'action': (_gw_ir_v1_RegexGuardAction__Output);
  /**
   * Never empty: the translator fills in the default (every scope).
   */
  'scopes': (_gw_ir_v1_ContentScope__Output)[];
  /**
   * Answer for REJECT (CustomResponse with its defaults applied).
   */
  'rejectStatus': (number);
  'rejectMessage': (string);
}
