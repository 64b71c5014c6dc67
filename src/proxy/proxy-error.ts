// The proxy's one error type: every failure the proxy answers a client with has a code, and the code alone
// decides the HTTP status and the metric reason, so the same condition never gets two statuses.
// Bodies are `{ error: code, error_description }` (src/proxy/http/http-error.ts writes them); descriptions name
// the route, backend or field involved, never a token, a secret or an engine's internal text.

/** Code → HTTP status. Grouped by who is at fault; add a code here before using it anywhere. */
export const errorStatus = {
  // The client's request
  bad_request: 400,
  invalid_request: 400,
  invalid_host: 400,
  invalid_client_metadata: 400,
  invalid_redirect_uri: 400,
  unauthorized: 401,
  invalid_token: 401,
  invalid_client: 401,
  invalid_credentials: 401,
  invalid_api_key: 401,
  forbidden: 403,
  destination_not_allowed: 403,
  content_flagged: 403,
  not_found: 404,
  model_not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  misdirected_request: 421,
  rate_limited: 429,
  too_many_sessions: 429,
  request_header_fields_too_large: 431,
  // The proxy or its configuration
  internal_error: 500,
  server_error: 500,
  no_backend: 500,
  direct_response_unsupported: 500,
  processing_failed: 500,
  transformation_failed: 500,
  route_type_not_supported: 501,
  provider_not_supported: 501,
  policy_not_enforced: 503,
  not_ready: 503,
  overloaded: 503,
  rate_limit_unavailable: 503,
  credential_missing: 500,
  loop_detected: 508,
  // The backend
  bad_gateway: 502,
  credential_unavailable: 502,
  temporarily_unavailable: 502,
  response_too_large: 502,
  moderation_unavailable: 502,
  backend_unavailable: 503,
  no_healthy_provider: 503,
  gateway_timeout: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;

/** A failure to answer with: thrown where it is found, written once where the response is owned. */
export class ProxyError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = errorStatus[code];
  }
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorStatus, code);
}
