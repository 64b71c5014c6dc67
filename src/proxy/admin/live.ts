// The web UI's live parts (docs/ui.md): the proxy's counters read from its own metrics registry (the browser
// keeps the points and derives rates), and the CEL playground, which evaluates with the proxy's own CEL
// environment and reports errors in the proxy's words.
import type { Registry } from 'prom-client';
import {
  celToJson,
  celVariables,
  compileCel,
  expressionVariables,
  isCelUint,
  type CelBindings,
  type CelVariable,
} from '../../cel/data-plane.js';
import type { CelRequest, CelResult, CelUsesView, LivePoint, MetricsView } from '../../ui-api/types.js';

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** The samples of one metric of the registry; none when it is not registered. */
async function samplesOf(registry: Registry, name: string): Promise<Sample[]> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return [];
  return (await metric.get()).values as Sample[];
}

/** Sums `samples` (of `series`, for a histogram's `_sum` / `_count`) by the key `keyOf` gives. */
function sumBy(samples: Sample[], keyOf: (l: Sample['labels']) => string, series?: string): LivePoint[] {
  const sums = new Map<string, number>();
  for (const s of samples) {
    if (series && s.metricName !== series) continue;
    const key = keyOf(s.labels);
    sums.set(key, (sums.get(key) ?? 0) + s.value);
  }
  return [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([key, value]) => ({ key, value }));
}

const label = (name: string) => (l: Sample['labels']) => String(l[name] ?? '');

export async function metricsView(registry: Registry, worker: number | null, clock = Date.now): Promise<MetricsView> {
  const [route, errors, tokens, cost, tools] = await Promise.all(
    [
      'gw_route_request_duration_seconds',
      'gw_proxy_errors_total',
      'gw_llm_tokens_total',
      'gw_llm_cost_usd_total',
      'gw_mcp_tool_calls_total',
    ].map((n) => samplesOf(registry, n)),
  );
  const count = 'gw_route_request_duration_seconds_count';
  return {
    at: clock(),
    worker,
    requestsByRoute: sumBy(route ?? [], label('route'), count),
    requestsByClass: sumBy(route ?? [], label('class'), count),
    latencySumByRoute: sumBy(route ?? [], label('route'), 'gw_route_request_duration_seconds_sum'),
    latencyCountByRoute: sumBy(route ?? [], label('route'), count),
    errorsByCode: sumBy(errors ?? [], label('code')),
    tokensByModel: sumBy(tokens ?? [], label('model')),
    costByModel: sumBy(cost ?? [], label('model')),
    toolCallsByTool: sumBy(tools ?? [], (l) => `${String(l.target)}/${String(l.tool)}`),
  };
}

/** Where an expression may be used, as the proxy names it; `authorization` (the default) knows every variable. */
const USES: Record<string, readonly CelVariable[]> = { authorization: celVariables, ...expressionVariables };

export function celUses(): CelUsesView {
  return { uses: Object.entries(USES).map(([name, variables]) => ({ name, variables: [...variables] })) };
}

const MAX_EXPRESSION = 4096;
/** Comprehensions nested deeper multiply their lists' lengths: ten lists of ten are 10^10 steps on the event loop. */
const MAX_NESTING = 2;
const MACRO_CALL = /\.\s*(all|exists_one|exists|map|filter)\s*\($/;

/**
 * How deeply comprehension macros nest in `source`, read from its parentheses (a macro name in a string
 * literal counts too, which only refuses more).
 */
function comprehensionNesting(source: string): number {
  const open: boolean[] = [];
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '(') {
      const macro = MACRO_CALL.test(source.slice(Math.max(0, i - 16), i + 1));
      open.push(macro);
      if (macro) deepest = Math.max(deepest, ++depth);
    } else if (c === ')' && open.pop()) depth--;
  }
  return deepest;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request's fault in the words the proxy's refusals use; undefined when it can be evaluated. */
function celRequestProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'the body must be a JSON object {expression, context, use}';
  if (typeof body.expression !== 'string' || body.expression === '') return 'expression: must be a non-empty string';
  if (body.expression.length > MAX_EXPRESSION) return `expression: longer than ${MAX_EXPRESSION} characters`;
  if (!isObject(body.context)) return 'context: must be a JSON object of variables';
  const nesting = comprehensionNesting(body.expression);
  if (nesting > MAX_NESTING)
    return `expression: ${nesting} nested comprehensions (all, exists, exists_one, map, filter); the playground evaluates at most ${MAX_NESTING}, on the proxy's own event loop`;
  if (body.use !== undefined && !(typeof body.use === 'string' && Object.hasOwn(USES, body.use)))
    return `use: must be one of ${Object.keys(USES).join(', ')}`;
  for (const [k, v] of Object.entries(body.context)) if (!isObject(v)) return `context.${k}: must be a JSON object`;
  return undefined;
}

/** A value's CEL type name as the result shows it. */
function celType(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (isCelUint(v)) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  const json = celToJson(v);
  if (Array.isArray(json)) return 'list';
  return isObject(json) ? 'map' : 'value';
}

/** Evaluates the expression as the proxy would where `use` says (compile errors name unknown variables). */
export function celEvaluate(body: unknown): CelResult {
  const problem = celRequestProblem(body);
  if (problem) return { ok: false, phase: 'request', error: problem };
  const req = body as CelRequest;
  const allowed = USES[req.use ?? 'authorization'] ?? celVariables;
  let compiled;
  try {
    compiled = compileCel(req.expression, allowed);
  } catch (err) {
    return { ok: false, phase: 'compile', error: `expression ${(err as Error).message}` };
  }
  const value = compiled.evaluate(req.context as CelBindings);
  if (value instanceof Error) return { ok: false, phase: 'evaluate', error: value.message };
  return { ok: true, value: celToJson(value) ?? null, type: celType(value) };
}
