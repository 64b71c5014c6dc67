// Original file: proto/gw/ir/v1/traffic.proto


export interface TrafficRetry {
  /**
   * spec.traffic.retry.attempts (default 1): retries after the first try.
   */
  'attempts'?: (number);
  /**
   * spec.traffic.retry.backoff; unset means the proxy default (25ms).
   */
  'backoffMs'?: (number);
  /**
   * spec.traffic.retry.codes; empty means the proxy default (502, 503, 504).
   */
  'codes'?: (number)[];
  '_backoffMs'?: "backoffMs";
}

export interface TrafficRetry__Output {
  /**
   * spec.traffic.retry.attempts (default 1): retries after the first try.
   */
  'attempts': (number);
  /**
   * spec.traffic.retry.backoff; unset means the proxy default (25ms).
   */
  'backoffMs'?: (number);
  /**
   * spec.traffic.retry.codes; empty means the proxy default (502, 503, 504).
   */
  'codes': (number)[];
  '_backoffMs'?: "backoffMs";
}
