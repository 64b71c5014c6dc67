// Original file: proto/gw/ir/v1/ir.proto


export interface ExtAuthorizationGrpc {
  /**
   * Sent as the CheckRequest's attributes.context_extensions.
   */
  'contextExtensions'?: ({[key: string]: string});
  /**
   * Namespace → CEL over request.* and jwt.*: each value (a map, or {"value": v} for anything else) is sent
   * as attributes.metadata_context.filter_metadata[namespace]; one that fails to evaluate is left out.
   */
  'requestMetadata'?: ({[key: string]: string});
}

export interface ExtAuthorizationGrpc__Output {
  /**
   * Sent as the CheckRequest's attributes.context_extensions.
   */
  'contextExtensions': ({[key: string]: string});
  /**
   * Namespace → CEL over request.* and jwt.*: each value (a map, or {"value": v} for anything else) is sent
   * as attributes.metadata_context.filter_metadata[namespace]; one that fails to evaluate is left out.
   */
  'requestMetadata': ({[key: string]: string});
}
