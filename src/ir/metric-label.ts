// The one rule for label names a listener adds to the request metrics (`ListenerMetrics.add`): the
// translator refuses names that break it, the proxy's snapshot check refuses a hand-written IR that does, so
// a name the controller accepted never fails when the proxy registers the metrics.

/** Labels the request metrics carry already (and the histogram's bucket label): an added label may not reuse them. */
export const OWN_METRIC_LABELS = ['method', 'status', 'le', 'quantile'] as const;

/** Why `name` cannot be an added metric label (one sentence, no subject), or undefined when it can. */
export function metricLabelNameProblem(name: string): string | undefined {
  if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name))
    return `must be a Prometheus label name (letters, digits and _, not starting with a digit), got ${JSON.stringify(name)}`;
  if (name.startsWith('__')) return `must not start with __ (reserved by Prometheus), got ${JSON.stringify(name)}`;
  if ((OWN_METRIC_LABELS as readonly string[]).includes(name))
    return `must not be one of the request metrics' own labels (${OWN_METRIC_LABELS.join(', ')}), got ${JSON.stringify(name)}`;
  return undefined;
}
