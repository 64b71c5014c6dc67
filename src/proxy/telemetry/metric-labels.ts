// GwPolicy `frontend.metrics.attributes.add` compiled once per snapshot: the labels a listener adds to the
// request metrics, each valued by a CEL expression over what access-log expressions see (the request, the
// response, the claims, the MCP call, the LLM request), evaluated once the response is done. A failed
// evaluation, or a value that is not a string, number or boolean, is the label value `unknown` (seed 001).
import type { ListenerMetrics, Listener } from '../../ir/types.js';
import { metricLabelNameProblem } from '../../ir/metric-label.js';
import type { Problem } from '../../problem.js';
import { compileCel, expressionVariables, type CelBindings, type CompiledCel } from '../policy/cel/env.js';

export class MetricLabels {
  private readonly labels: { name: string; cel: CompiledCel }[];

  constructor(cfg: ListenerMetrics) {
    // The translator refused what does not compile; the proxy compiles only what reached it.
    this.labels = cfg.add.map((a) => ({ name: a.name, cel: compileCel(a.expression, expressionVariables.accessLog) }));
  }

  get names(): string[] {
    return this.labels.map((l) => l.name);
  }

  values(bindings: CelBindings): Record<string, string> {
    const out: Record<string, string> = {};
    for (const l of this.labels) out[l.name] = labelValue(l.cel.evaluate(bindings));
    return out;
  }
}

function labelValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return 'unknown';
}

/** Every label name the snapshot's listeners add, for the request metrics' label set. */
export function metricLabelNames(listeners: Iterable<Listener>): string[] {
  const names = new Set<string>();
  for (const l of listeners) for (const a of l.telemetry?.metrics?.add ?? []) names.add(a.name);
  return [...names].sort();
}

/** Label names Prometheus or the request metrics cannot take, or repeated on one listener (hand-written IR). */
export function metricLabelProblems(l: Listener, source: string): Problem[] {
  const seen = new Set<string>();
  return (l.telemetry?.metrics?.add ?? []).flatMap((a, i) => {
    const problem = metricLabelNameProblem(a.name) ?? (seen.has(a.name) ? `repeats label name ${a.name}` : undefined);
    seen.add(a.name);
    return problem
      ? [{ source, object: `Listener ${l.name}`, path: `telemetry.metrics.add[${i}].name`, message: problem }]
      : [];
  });
}
