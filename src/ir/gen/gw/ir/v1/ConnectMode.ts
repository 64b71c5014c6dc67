// Original file: proto/gw/ir/v1/ir.proto

/**
 * GwPolicy `frontend.connect.mode`.
 */
export const ConnectMode = {
  /**
   * No connect policy: 405 method_not_allowed (the seed's answer).
   */
  CONNECT_MODE_UNSPECIFIED: 'CONNECT_MODE_UNSPECIFIED',
  /**
   * Deny: 405 method_not_allowed, as without a policy.
   */
  CONNECT_DENY: 'CONNECT_DENY',
  /**
   * Route: matched as a request (host: the authority's, method CONNECT, path `/`); the route's policies run,
   * then `200` and a TCP tunnel to the route's backend (a dynamicForwardProxy backend: the authority).
   */
  CONNECT_ROUTE: 'CONNECT_ROUTE',
  /**
   * Tunnel: `200`, then the tunnelled bytes are served by this bind as a new connection.
   */
  CONNECT_TUNNEL: 'CONNECT_TUNNEL',
} as const;

/**
 * GwPolicy `frontend.connect.mode`.
 */
export type ConnectMode =
  /**
   * No connect policy: 405 method_not_allowed (the seed's answer).
   */
  | 'CONNECT_MODE_UNSPECIFIED'
  | 0
  /**
   * Deny: 405 method_not_allowed, as without a policy.
   */
  | 'CONNECT_DENY'
  | 1
  /**
   * Route: matched as a request (host: the authority's, method CONNECT, path `/`); the route's policies run,
   * then `200` and a TCP tunnel to the route's backend (a dynamicForwardProxy backend: the authority).
   */
  | 'CONNECT_ROUTE'
  | 2
  /**
   * Tunnel: `200`, then the tunnelled bytes are served by this bind as a new connection.
   */
  | 'CONNECT_TUNNEL'
  | 3

/**
 * GwPolicy `frontend.connect.mode`.
 */
export type ConnectMode__Output = typeof ConnectMode[keyof typeof ConnectMode]
