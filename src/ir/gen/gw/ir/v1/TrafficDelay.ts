// Original file: proto/gw/ir/v1/traffic.proto


export interface TrafficDelay {
  /**
   * spec.traffic.delay.duration as a Duration literal.
   */
  'durationMs'?: (number);
  /**
   * spec.traffic.delay.duration as a CEL expression yielding a duration.
   */
  'expression'?: (string);
  'kind'?: "durationMs"|"expression";
}

export interface TrafficDelay__Output {
  /**
   * spec.traffic.delay.duration as a Duration literal.
   */
  'durationMs'?: (number);
  /**
   * spec.traffic.delay.duration as a CEL expression yielding a duration.
   */
  'expression'?: (string);
  'kind'?: "durationMs"|"expression";
}
