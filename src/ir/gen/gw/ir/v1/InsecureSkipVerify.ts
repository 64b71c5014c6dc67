// Original file: proto/gw/ir/v1/tls.proto

/**
 * What upstream certificate verification is skipped (GwPolicy `backend.tls.insecureSkipVerify`).
 * Values carry a prefix because proto3 enum values share the package scope.
 */
export const InsecureSkipVerify = {
  /**
   * Verify the chain and the host name (or verify_subject_alt_names).
   */
  SKIP_NONE: 'SKIP_NONE',
  /**
   * Verify the chain only.
   */
  SKIP_HOSTNAME: 'SKIP_HOSTNAME',
  /**
   * Verify nothing.
   */
  SKIP_ALL: 'SKIP_ALL',
} as const;

/**
 * What upstream certificate verification is skipped (GwPolicy `backend.tls.insecureSkipVerify`).
 * Values carry a prefix because proto3 enum values share the package scope.
 */
export type InsecureSkipVerify =
  /**
   * Verify the chain and the host name (or verify_subject_alt_names).
   */
  | 'SKIP_NONE'
  | 0
  /**
   * Verify the chain only.
   */
  | 'SKIP_HOSTNAME'
  | 1
  /**
   * Verify nothing.
   */
  | 'SKIP_ALL'
  | 2

/**
 * What upstream certificate verification is skipped (GwPolicy `backend.tls.insecureSkipVerify`).
 * Values carry a prefix because proto3 enum values share the package scope.
 */
export type InsecureSkipVerify__Output = typeof InsecureSkipVerify[keyof typeof InsecureSkipVerify]
