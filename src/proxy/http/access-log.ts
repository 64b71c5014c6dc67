// GwPolicy `frontend.accessLog` (seed 001): one structured line per request on the listener, written when
// the response ends, through the proxy's logger. `filter` (CEL) decides whether a line is written; `attributes`
// add fields (CEL; a pair whose evaluation fails is left out, as the seed says) and remove named ones; the
// Otel preset names fields by OpenTelemetry's HTTP semantic conventions. Never logs credentials: headers are
// only what an expression picks.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { AccessLog } from '../../ir/types.js';
import { ProblemError, type Problem } from '../../problem.js';
import { accessLogVariables, compileCel, holds, type CelBindings, type CompiledCel } from '../policy/cel/env.js';
import { errorCodeOf } from './http-error.js';

export interface AccessLogPlan {
  filter?: CompiledCel;
  add: { name: string; expr: CompiledCel }[];
  remove: Set<string>;
  otel: boolean;
}

/** What one finished request contributes to its line. */
export interface AccessEntry {
  req: IncomingMessage;
  res: ServerResponse;
  listener: string;
  route: string | undefined;
  claims: Record<string, unknown> | null;
  /** process.hrtime.bigint() when the request arrived. */
  start: bigint;
}

/** Throws a ProblemError naming the listener's field when an expression does not compile (the translator checks first). */
export function compileAccessLog(a: AccessLog, listener: string): AccessLogPlan {
  const problems: Problem[] = [];
  const compile = (src: string, path: string): CompiledCel | undefined => {
    try {
      return compileCel(src, accessLogVariables);
    } catch (err) {
      problems.push({ source: 'snapshot', object: `Listener ${listener}`, path, message: (err as Error).message });
      return undefined;
    }
  };
  const filter = a.filter ? compile(a.filter, 'accessLog.filter') : undefined;
  const add = a.add.flatMap((x, i) => {
    const expr = compile(x.expression, `accessLog.add[${i}].expression`);
    return expr ? [{ name: x.name, expr }] : [];
  });
  if (problems.length > 0) throw new ProblemError(problems);
  return { ...(filter ? { filter } : {}), add, remove: new Set(a.remove), otel: a.preset === 'OTEL' };
}

/** Writes the line for a finished request, unless the filter says no. */
export function writeAccessLine(log: Logger, plan: AccessLogPlan, e: AccessEntry): void {
  const durationMs = Number(process.hrtime.bigint() - e.start) / 1e6;
  const headers = Object.fromEntries(
    Object.entries(e.req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
  );
  const bindings: CelBindings = {
    request: {
      method: e.req.method ?? '',
      path: (e.req.url ?? '').split('?')[0] ?? '',
      host: e.req.headers.host ?? '',
      headers,
      protocol: `HTTP/${e.req.httpVersion}`,
    },
    response: { code: e.res.statusCode, duration_ms: durationMs },
    source: { address: e.req.socket.remoteAddress ?? '', port: e.req.socket.remotePort ?? 0 },
    ...(e.claims ? { jwt: e.claims } : {}),
  };
  if (plan.filter && !holds(plan.filter, bindings)) return;
  const fields: Record<string, unknown> = plan.otel ? otelFields(e, durationMs) : defaultFields(e, durationMs);
  for (const { name, expr } of plan.add) {
    const v = expr.evaluate(bindings);
    if (!(v instanceof Error)) fields[name] = typeof v === 'bigint' ? Number(v) : v;
  }
  for (const name of plan.remove) delete fields[name];
  log.info(fields, 'access');
}

function defaultFields(e: AccessEntry, durationMs: number): Record<string, unknown> {
  const code = errorCodeOf(e.res);
  return {
    listener: e.listener,
    ...(e.route ? { route: e.route } : {}),
    method: e.req.method,
    path: (e.req.url ?? '').split('?')[0],
    host: e.req.headers.host,
    protocol: `HTTP/${e.req.httpVersion}`,
    status: e.res.statusCode,
    duration_ms: Math.round(durationMs * 1000) / 1000,
    source: e.req.socket.remoteAddress,
    ...(code ? { error: code } : {}),
  };
}

/** OpenTelemetry semantic conventions (HTTP server spans and logs); `gw.*` for what they do not name. */
function otelFields(e: AccessEntry, durationMs: number): Record<string, unknown> {
  const code = errorCodeOf(e.res);
  return {
    'http.request.method': e.req.method,
    'url.path': (e.req.url ?? '').split('?')[0],
    'server.address': (e.req.headers.host ?? '').replace(/:\d+$/, ''),
    'network.protocol.version': e.req.httpVersion,
    'http.response.status_code': e.res.statusCode,
    'http.server.request.duration': durationMs / 1000,
    'client.address': e.req.socket.remoteAddress,
    'user_agent.original': e.req.headers['user-agent'],
    'gw.listener': e.listener,
    ...(e.route ? { 'http.route': e.route } : {}),
    ...(code ? { 'error.type': code } : {}),
  };
}
