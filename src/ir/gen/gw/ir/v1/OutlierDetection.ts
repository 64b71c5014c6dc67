// Original file: proto/gw/ir/v1/ir_translate.proto


/**
 * Passive health (`health` of GwPolicy `backend`, GwBackend `policies`, AI providers' and GwModels'
 * `policies`), resolved: an endpoint or provider failing `consecutive_failures` times in a row is ejected
 * (left out of the choice) for `base_ejection_ms` times 2^(ejections - 1), capped at `max_ejection_ms`; at
 * most `max_ejection_percent` of a pool is ejected at once, and never the whole pool. Per proxy replica.
 */
export interface OutlierDetection {
  /**
   * Failures in a row (connect error, reset, timeout, 5xx, 429) that eject; 1-1000.
   */
  'consecutiveFailures'?: (number);
  /**
   * `ejectionDuration` in ms: the first ejection's length.
   */
  'baseEjectionMs'?: (number);
  /**
   * 0-100: share of a pool that may be ejected at once (at least one endpoint when above 0, never all).
   */
  'maxEjectionPercent'?: (number);
  /**
   * Longest ejection; repeated ejections double up to it.
   */
  'maxEjectionMs'?: (number);
  /**
   * Where it came from (`GwPolicy ns/name`, `GwModel ns/name`); diagnostics only.
   */
  'source'?: (string);
  /**
   * `unhealthyCondition`: CEL over `response` (`code`, `headers`); when set, a response counts as a failure
   * exactly when it is true (instead of 5xx or 429). Connect errors, resets and timeouts always count.
   */
  'unhealthyCondition'?: (string);
}

/**
 * Passive health (`health` of GwPolicy `backend`, GwBackend `policies`, AI providers' and GwModels'
 * `policies`), resolved: an endpoint or provider failing `consecutive_failures` times in a row is ejected
 * (left out of the choice) for `base_ejection_ms` times 2^(ejections - 1), capped at `max_ejection_ms`; at
 * most `max_ejection_percent` of a pool is ejected at once, and never the whole pool. Per proxy replica.
 */
export interface OutlierDetection__Output {
  /**
   * Failures in a row (connect error, reset, timeout, 5xx, 429) that eject; 1-1000.
   */
  'consecutiveFailures': (number);
  /**
   * `ejectionDuration` in ms: the first ejection's length.
   */
  'baseEjectionMs': (number);
  /**
   * 0-100: share of a pool that may be ejected at once (at least one endpoint when above 0, never all).
   */
  'maxEjectionPercent': (number);
  /**
   * Longest ejection; repeated ejections double up to it.
   */
  'maxEjectionMs': (number);
  /**
   * Where it came from (`GwPolicy ns/name`, `GwModel ns/name`); diagnostics only.
   */
  'source': (string);
  /**
   * `unhealthyCondition`: CEL over `response` (`code`, `headers`); when set, a response counts as a failure
   * exactly when it is true (instead of 5xx or 429). Connect errors, resets and timeouts always count.
   */
  'unhealthyCondition': (string);
}
