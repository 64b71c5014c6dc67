// Original file: proto/gw/ir/v1/ir_translate.proto


export interface RegexGuardPattern {
  /**
   * The builtin's name (`Ssn`) or the user's `name`; empty when unnamed. Logged instead of matched text.
   */
  'name'?: (string);
  'pattern'?: (string);
  /**
   * What MASK writes in place of a match, e.g. `<SSN>`.
   */
  'mask'?: (string);
}

export interface RegexGuardPattern__Output {
  /**
   * The builtin's name (`Ssn`) or the user's `name`; empty when unnamed. Logged instead of matched text.
   */
  'name': (string);
  'pattern': (string);
  /**
   * What MASK writes in place of a match, e.g. `<SSN>`.
   */
  'mask': (string);
}
