// Original file: proto/gw/ir/v1/ir_translate.proto


/**
 * An InferencePool (Gateway API Inference Extension) as the proxy calls it.
 */
export interface InferencePoolTarget {
  /**
   * `InferencePool ns/name`: log field and error text.
   */
  'name'?: (string);
  /**
   * `ip:port` of every ready Pod the selector matches, for each target port; sorted.
   */
  'endpoints'?: (string)[];
  /**
   * The endpoint picker (EPP) as `grpc://host:port` (its Service); unset: round-robin over endpoints.
   */
  'pickerUrl'?: (string);
  /**
   * `endpointPickerRef.failureMode` FailOpen: an unreachable picker falls back to round-robin
   * (default FailClose: the request is refused).
   */
  'pickerFailOpen'?: (boolean);
}

/**
 * An InferencePool (Gateway API Inference Extension) as the proxy calls it.
 */
export interface InferencePoolTarget__Output {
  /**
   * `InferencePool ns/name`: log field and error text.
   */
  'name': (string);
  /**
   * `ip:port` of every ready Pod the selector matches, for each target port; sorted.
   */
  'endpoints': (string)[];
  /**
   * The endpoint picker (EPP) as `grpc://host:port` (its Service); unset: round-robin over endpoints.
   */
  'pickerUrl': (string);
  /**
   * `endpointPickerRef.failureMode` FailOpen: an unreachable picker falls back to round-robin
   * (default FailClose: the request is refused).
   */
  'pickerFailOpen': (boolean);
}
