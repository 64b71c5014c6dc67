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
   * The endpoint picker (EPP) as `grpc://ip:port`: a ready endpoint of its Service (EndpointSlices).
   */
  'pickerUrl'?: (string);
  /**
   * `endpointPickerRef.failureMode` FailOpen: an unreachable picker falls back to round-robin
   * (default FailClose: the request is refused).
   */
  'pickerFailOpen'?: (boolean);
  /**
   * The pool names a picker (`endpointPickerRef`); with picker_url empty none of its endpoints is ready,
   * which failureMode treats as unreachable. Unset: round-robin over endpoints.
   */
  'hasPicker'?: (boolean);
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
   * The endpoint picker (EPP) as `grpc://ip:port`: a ready endpoint of its Service (EndpointSlices).
   */
  'pickerUrl': (string);
  /**
   * `endpointPickerRef.failureMode` FailOpen: an unreachable picker falls back to round-robin
   * (default FailClose: the request is refused).
   */
  'pickerFailOpen': (boolean);
  /**
   * The pool names a picker (`endpointPickerRef`); with picker_url empty none of its endpoints is ready,
   * which failureMode treats as unreachable. Unset: round-robin over endpoints.
   */
  'hasPicker': (boolean);
}
