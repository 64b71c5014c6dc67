// GwPolicy `frontend.accessLog`, `frontend.tracing` and `frontend.metrics` → the typed Listener.telemetry the
// proxy acts on, and the parts it cannot act on as written (a URL of another scheme, an expression that does not
// compile, a backendRef that does not resolve, a label name Prometheus or the request metrics cannot take) as
// refusals naming the field: those parts are left out, never silently kept.
import type { Frontend } from '../../api/frontend.js';
import { celCompileProblem, expressionVariables } from '../../cel/data-plane.js';
import type { AccessLogInput, ListenerTelemetryInput, MetricLabelInput } from '../../ir/types.js';
import { metricLabelNameProblem } from '../../ir/metric-label.js';
import type { IrRefusal } from '../../coverage/effective.js';
import type { MergeResult } from '../policies/policy-merge.js';
import type { PolicyBackendResolver } from '../policies/ext-auth.js';

type Target = NonNullable<Frontend['tracing']>;
type Resolved = { url: string } | { problem: string };

/** The OTLP/HTTP URL for one signal (`/v1/traces`, `/v1/logs`) of a `backendRef` / `url` target, or its OTLP/gRPC URL. */
export function otlpUrl(field: string, target: Target, signalPath: string, resolve: PolicyBackendResolver): Resolved {
  let base: string;
  if (target.backendRef) {
    const r = resolve(field, target.backendRef);
    if ('problem' in r) return { problem: `backendRef: ${r.problem}` };
    base = r.url;
  } else base = target.url ?? '';
  // OTLP/gRPC names a channel, not a path: `grpc://host:port` (plain) or `grpcs://host:port` (TLS).
  if (/^grpcs?:\/\//.test(base)) {
    if (!/^grpcs?:\/\/[^/?#]+\/?$/.test(base))
      return { problem: 'an OTLP/gRPC URL is grpc://host:port or grpcs://host:port, without a path' };
    return { url: base.replace(/\/$/, '') };
  }
  if (!/^https?:\/\//.test(base)) return { problem: 'must be an http(s) URL (OTLP/HTTP) or a grpc(s) URL (OTLP/gRPC)' };
  // A URL with a path names the endpoint itself, as OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT does.
  return /^https?:\/\/[^/]+\/./.test(base) ? { url: base } : { url: base.replace(/\/$/, '') + signalPath };
}

/** Listener.telemetry of a merged frontend policy, and the refusals of what in it cannot be used. */
export function listenerTelemetry(
  frontend: MergeResult,
  resolve: PolicyBackendResolver,
): { telemetry?: ListenerTelemetryInput; refusals: IrRefusal[] } {
  const refusals: IrRefusal[] = [];
  const refuse = (key: string, sub: string, reason: string): void => {
    const source = frontend.provenance[key]?.source ?? '';
    refusals.push({ field: `spec.${key}${sub}`, source, reason, security: false });
  };
  const telemetry: ListenerTelemetryInput = {};
  const tracing = frontend.fields['frontend.tracing'] as Frontend['tracing'];
  if (tracing) {
    const r = otlpUrl('frontend.tracing', tracing, '/v1/traces', resolve);
    if ('problem' in r) refuse('frontend.tracing', '', `${r.problem}; no spans are exported`);
    else telemetry.tracing = { otlpTracesUrl: r.url };
  }
  const log = frontend.fields['frontend.accessLog'] as Frontend['accessLog'];
  if (log) {
    const accessLog: AccessLogInput = {};
    if (log.preset === 'Otel') accessLog.otelPreset = true;
    const cel = (sub: string, source: string): boolean => {
      const problem = celCompileProblem(source, expressionVariables.accessLog);
      if (problem) refuse('frontend.accessLog', sub, `${problem}; the access log leaves it out`);
      return !problem;
    };
    if (log.filter && cel('.filter', log.filter)) accessLog.filter = log.filter;
    const add = (log.attributes?.add ?? []).filter((a, i) => cel(`.attributes.add[${i}].expression`, a.expression));
    if (add.length) accessLog.add = add.map((a) => ({ name: a.name, expression: a.expression }));
    if (log.attributes?.remove?.length) accessLog.remove = [...log.attributes.remove];
    if (log.otlp) {
      const r = otlpUrl('frontend.accessLog', log.otlp, '/v1/logs', resolve);
      if ('problem' in r) refuse('frontend.accessLog', '.otlp', `${r.problem}; lines are written to stdout only`);
      else accessLog.otlpLogsUrl = r.url;
    }
    telemetry.accessLog = accessLog;
  }
  const labels = metricLabels(frontend.fields['frontend.metrics'] as Frontend['metrics'], refuse);
  if (labels.length) telemetry.metrics = { add: labels };
  return Object.keys(telemetry).length ? { telemetry, refusals } : { refusals };
}

/**
 * `frontend.metrics.attributes.add` → `ListenerMetrics.add`: the items whose name is a usable label (and not
 * an earlier item's) and whose expression compiles with what access-log expressions see; the rest refused.
 */
function metricLabels(
  metrics: Frontend['metrics'],
  refuse: (key: string, sub: string, reason: string) => void,
): MetricLabelInput[] {
  const out: MetricLabelInput[] = [];
  (metrics?.attributes?.add ?? []).forEach((a, i) => {
    const at = `.attributes.add[${i}]`;
    const nameProblem =
      metricLabelNameProblem(a.name) ??
      (out.some((l) => l.name === a.name) ? `repeats the label name ${JSON.stringify(a.name)}` : undefined);
    const celProblem = celCompileProblem(a.expression, expressionVariables.accessLog);
    if (nameProblem) refuse('frontend.metrics', `${at}.name`, `${nameProblem}; the request metrics leave it out`);
    else if (celProblem)
      refuse('frontend.metrics', `${at}.expression`, `${celProblem}; the request metrics leave it out`);
    else out.push({ name: a.name, expression: a.expression });
  });
  return out;
}
