// GwPolicy `traffic.directResponse` answered by the proxy itself: a fixed answer, or (`conditional`, or a
// body or header value that reads the request) the first entry whose condition holds, its body and header
// values evaluated per request from expressions compiled once per snapshot. A value that fails to evaluate
// answers 500 naming the field, never a half-filled answer. Behaviour: docs/proxy.md "Traffic policy".
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from '../http/http-error.js';
import { holds } from './cel/env.js';
import { celText } from './cel/snapshot-cel.js';
import type { DirectResponse, TrafficPlan } from './traffic-policy.js';

const BREAKS = /[\r\n\0]/;

/** The CEL `request` of a request as the client sent it: method, path (no query), host, headers (one value each). */
export function requestOf(req: IncomingMessage): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return { method: req.method ?? 'GET', path: q < 0 ? url : url.slice(0, q), host: headers.host ?? '', headers };
}

/** True when the route's direct response answered; false when no conditional entry matched (the request goes on). */
export function answerDirect(
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  direct: NonNullable<TrafficPlan['directResponse']>,
): boolean {
  const answer = direct.kind === 'static' ? direct.response : chosen(req, direct.choices);
  if (!answer) return false;
  req.resume();
  if (answer instanceof Error)
    sendError(res, 'transformation_failed', `the direct response of route ${route}: ${answer.message}`);
  else
    res
      .writeHead(answer.status, { ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)) })
      .end(answer.body);
  return true;
}

function chosen(
  req: IncomingMessage,
  choices: Extract<NonNullable<TrafficPlan['directResponse']>, { kind: 'cel' }>['choices'],
): DirectResponse | Error | undefined {
  const bindings = { request: requestOf(req) };
  const i = choices.findIndex((c) => !c.when || holds(c.when, bindings));
  const c = choices[i];
  if (!c) return undefined;
  const at = choices.length > 1 || c.when ? `conditional[${i}].response.` : '';
  let body: string;
  if (typeof c.answer.body === 'string') body = c.answer.body;
  else {
    const v = celText(c.answer.body.evaluate(bindings));
    if (v instanceof Error) return new Error(`${at}bodyExpression ${v.message}`);
    body = v;
  }
  const headers: Record<string, string> = {};
  for (const [j, [name, expr]] of c.answer.headers.entries()) {
    const v = celText(expr.evaluate(bindings));
    if (v instanceof Error) return new Error(`${at}headers[${j}] (${name}) ${v.message}`);
    if (BREAKS.test(v)) return new Error(`${at}headers[${j}] (${name}) yields a line break`);
    headers[name] = v;
  }
  return { status: c.answer.status, body, headers };
}
