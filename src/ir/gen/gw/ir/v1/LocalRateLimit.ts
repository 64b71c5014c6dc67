// Original file: proto/gw/ir/v1/traffic.proto


export interface LocalRateLimit {
  /**
   * spec.traffic.rateLimit.local[].requests: requests per interval.
   */
  'requests'?: (number);
  /**
   * spec.traffic.rateLimit.local[].tokens: LLM tokens per interval, counted after each response.
   */
  'tokens'?: (number);
  /**
   * spec.traffic.rateLimit.local[].unit: Seconds 1000, Minutes 60000, Hours 3600000.
   */
  'intervalMs'?: (number);
  /**
   * spec.traffic.rateLimit.local[].burst
   */
  'burst'?: (number);
  'amount'?: "requests"|"tokens";
}

export interface LocalRateLimit__Output {
  /**
   * spec.traffic.rateLimit.local[].requests: requests per interval.
   */
  'requests'?: (number);
  /**
   * spec.traffic.rateLimit.local[].tokens: LLM tokens per interval, counted after each response.
   */
  'tokens'?: (number);
  /**
   * spec.traffic.rateLimit.local[].unit: Seconds 1000, Minutes 60000, Hours 3600000.
   */
  'intervalMs': (number);
  /**
   * spec.traffic.rateLimit.local[].burst
   */
  'burst': (number);
  'amount'?: "requests"|"tokens";
}
