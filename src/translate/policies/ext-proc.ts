// GwPolicy `traffic.extProc` → the typed IR the proxy enforces (an external processor over Envoy's ext_proc
// gRPC protocol), or why it cannot be enforced as written: the routes it reaches then refuse their requests.
import type { ExtProc } from '../../api/index.js';
import type { ExtProcBodyModeInput, ExtProcessingInput } from '../../ir/types.js';
import { celCompileProblem, expressionVariables } from '../../cel/data-plane.js';
import { parseDurationMs } from '../../ir/duration.js';
import type { PolicyBackendResolver } from './ext-auth.js';

type BodySendMode = NonNullable<NonNullable<ExtProc['processingOptions']>['requestBody']>;

const bodyModes: Record<BodySendMode, ExtProcBodyModeInput> = {
  None: 'EXT_PROC_BODY_NONE',
  Buffered: 'EXT_PROC_BODY_BUFFERED',
  BufferedPartial: 'EXT_PROC_BODY_BUFFERED_PARTIAL',
  FullDuplexStreamed: 'EXT_PROC_BODY_FULL_DUPLEX_STREAMED',
};

/** The largest per-message timeout: Envoy caps its message_timeout at one hour too. */
const maxTimeoutMs = 3_600_000;

const sorted = (m: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));

/** Every CEL expression of `traffic.extProc` that does not compile on the proxy (path under traffic.extProc, message). */
export function extProcCelProblems(e: ExtProc): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const check = (field: string, m: Record<string, string> | undefined, vars: readonly string[]): void => {
    for (const [name, source] of Object.entries(sorted(m))) {
      const message = celCompileProblem(source, vars as never);
      if (message !== undefined) out.push({ path: `${field}.${name}`, message });
    }
  };
  check('metadataContext', e.metadataContext, expressionVariables.extProcRequest);
  check('requestAttributes', e.requestAttributes, expressionVariables.extProcRequest);
  check('responseAttributes', e.responseAttributes, expressionVariables.extProcResponse);
  return out;
}

/**
 * The typed form, or why the proxy cannot enforce it. Expressions pass as text even when they do not compile:
 * the proxy then refuses the route naming the expression, and the policy's status says so (extProcCelProblems).
 */
export function toExtProc(e: ExtProc, resolve: PolicyBackendResolver): ExtProcessingInput | string {
  let url = e.url;
  if (url !== undefined && !/^grpcs?:\/\/[^/]+\/?$/i.test(url))
    return 'url: must be grpc://host:port or grpcs://host:port (the processor speaks gRPC; no path)';
  if (e.backendRef) {
    const r = resolve('traffic.extProc', e.backendRef);
    if ('problem' in r) return `backendRef: ${r.problem}`;
    // The processor's channel carries no CA or client certificate: a backend that asks for TLS is refused,
    // never dialled in plaintext.
    if (r.tls)
      return 'backendRef: the backend sets policies.tls, which is not applied to an external processor; use url: grpcs://host:port';
    url = r.url.replace(/^https?:/i, 'grpc:');
  }
  if (url === undefined) return 'one of url and backendRef is needed';
  const o = e.processingOptions ?? {};
  let timeoutMs = 0;
  if (o.timeout !== undefined) {
    const ms = parseDurationMs(o.timeout);
    if (ms === undefined || ms <= 0 || ms > maxTimeoutMs)
      return `processingOptions.timeout: must be a duration between 1ms and 1h, got ${JSON.stringify(o.timeout)}`;
    timeoutMs = ms;
  }
  return {
    url: url.replace(/\/+$/, ''),
    failOpen: e.failureMode === 'FailOpen',
    skipRequestHeaders: o.requestHeaders === 'Skip',
    skipResponseHeaders: o.responseHeaders === 'Skip',
    requestBody: bodyModes[o.requestBody ?? 'None'],
    responseBody: bodyModes[o.responseBody ?? 'None'],
    sendRequestTrailers: o.requestTrailers === 'Send',
    sendResponseTrailers: o.responseTrailers === 'Send',
    timeoutMs,
    metadataContext: sorted(e.metadataContext),
    requestAttributes: sorted(e.requestAttributes),
    responseAttributes: sorted(e.responseAttributes),
  };
}
