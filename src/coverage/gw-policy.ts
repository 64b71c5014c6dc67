// Coverage of GwPolicy: what the proxy acts on, what is refused, what only the control plane reads.
import { backendFull } from './backend-policy.js';
import { controlPlane, enforced, refused, refusedUnlessDefault, under, type CoverageTable } from './types.js';

const notYet = 'is not supported by this proxy yet';
const notYetPlural = 'are not supported by this proxy yet';
const frontend = (what: string, security = false) =>
  refused(`listener setting not supported by this proxy yet: ${what}`, security);

const traffic: CoverageTable = {
  'apiKeyAuthentication.*': enforced('Policy.apiKeyAuthentication'),
  'basicAuthentication.*': enforced('Policy.basicAuthentication'),
  'jwtAuthentication.*': enforced('Policy.jwtAuthentication'),
  'jwtAuthentication.mcp.*': enforced('Policy.mcpAuthentication'),
  'jwtAuthentication.providers[].jwks.remote.backendRef.*': refused(
    `JWKS fetched through a backendRef ${notYet}; use jwks.remote.url or jwks.inline`,
    true,
  ),
  'jwtAuthentication.providers[].jwks.remote.path': refused(
    `JWKS fetched through a backendRef ${notYet}; use jwks.remote.url or jwks.inline`,
    true,
  ),
  'jwtAuthentication.providers[].jwks.remote.cacheDuration': refusedUnlessDefault(
    `choosing how long JWKS are cached ${notYet} (keys are refreshed after 10 minutes)`,
    '5m',
  ),
  'jwtAuthentication.location.expression': refused(
    `a CEL credential location ${notYet}; use header, queryParameter or cookie`,
    true,
  ),
  'apiKeyAuthentication.location.expression': refused(
    `a CEL credential location ${notYet}; use header, queryParameter or cookie`,
    true,
  ),
  'apiKeyAuthentication.secretSelector.*': refused(`API keys chosen by labels ${notYetPlural}; use secretRef`, true),
  'apiKeyAuthentication.configMapSelector.*': refused(`API keys chosen by labels ${notYetPlural}; use secretRef`, true),
  'basicAuthentication.location.*': refused(
    'Basic credentials are read from the Authorization header only; another location is not supported',
    true,
  ),
  'authorization.*': enforced('Policy.authorization'),
  'extAuth.*': enforced('Policy.extAuthorization'),
  'extProc.*': refused(`external processing ${notYet}`, true),
  'cors.*': enforced('Policy.cors'),
  'csrf.*': enforced('TrafficPolicy.csrf'),
  'buffer.request.maxBytes': enforced('Policy.maxRequestBytes'),
  'buffer.request.failureMode': enforced(
    'TrafficPolicy.requestBuffer',
    'FailOpen streams an oversized body on forwarded HTTP routes without retry; on MCP and LLM routes FailOpen is refused on status (scope-refusals.ts)',
  ),
  'buffer.response.*': enforced(
    'TrafficPolicy.responseBuffer',
    'forwarded HTTP routes; refused on status for MCP and LLM routes',
  ),
  'delay.*': enforced('TrafficPolicy.delay'),
  hostRewrite: enforced('TrafficPolicy.hostRewrite', 'forwarded HTTP routes; refused on status for MCP and LLM routes'),
  'transformation.*': refused(`request and response transformations ${notYetPlural}`),
  'timeouts.*': enforced('TrafficPolicy.timeouts'),
  'retry.*': enforced('TrafficPolicy.retry'),
  'headerModifiers.*': enforced('TrafficPolicy.requestHeaders', 'and TrafficPolicy.responseHeaders'),
  'rateLimit.local[].*': enforced('TrafficPolicy.localRateLimits'),
  'rateLimit.local[].tokens': enforced(
    'LocalRateLimit.tokens',
    "LLM routes: each answer's input + output tokens count against later requests; refused on status for other routes",
  ),
  'directResponse.*': enforced('TrafficPolicy.directResponse'),
  'directResponse.conditional[].*': refused(`conditional direct responses ${notYetPlural}`),
};

const frontendTable: CoverageTable = {
  'accessLog.*': frontend('access logs'),
  'connect.*': frontend('HTTP CONNECT handling'),
  'http.*': frontend('HTTP/1 and HTTP/2 tuning'),
  'http.maxConcurrentRequests': enforced(
    'ListenerLimits.maxConcurrentRequests',
    'excess requests on the listener get 503',
  ),
  'metrics.*': frontend('metric attributes'),
  'networkAuthorization.*': frontend('network authorization', true),
  'proxyProtocol.*': frontend('PROXY protocol'),
  'tcp.*': frontend('TCP settings'),
  'tcp.maxConnections': enforced(
    'ListenerLimits.maxConnections',
    "excess connections on the listener's port are closed; listeners sharing a port share the smallest cap",
  ),
  'tls.*': frontend('TLS settings (versions, ciphers, ALPN)', true),
  'tracing.*': frontend('tracing'),
};

export const gwPolicyCoverage: CoverageTable = {
  'spec.targetRefs[].*': controlPlane('policy attachment (merge, status)'),
  'spec.targetSelectors[].*': controlPlane('policy attachment (merge, status)'),
  'spec.strategy.inheritance': controlPlane('policy merge precedence'),
  'spec.strategy.merge': controlPlane(
    'policy merge: Replace takes the higher-precedence policy whole instead of field by field',
  ),
  ...under('spec.traffic', traffic),
  ...under('spec.frontend', frontendTable),
  ...under('spec.backend', backendFull),
};
