// An AI provider's own `backend.transformation` (its policies, or the edge's), through the engine of
// src/proxy/policy/transformation.ts: the request step edits each call to that provider (its headers without
// the credential, which is added after, so no expression sees or removes it; its path; its body in the
// provider's format), the response step's header edits land on the answer the client gets from that provider.
// Failover to another provider applies the other's. Behaviour: docs/llm-providers.md "Provider transformations".
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transformation as IrTransformation } from '../../ir/types.js';
import { requestOf } from '../policy/direct-response.js';
import {
  applyValues,
  compileTransformation,
  evaluateStep,
  TransformFailure,
  type TransformPlan,
  type TransformStep,
} from '../policy/transformation.js';
import { transformRequest, type TransformCaller } from '../http/transform-forward.js';
import type { HeaderMap } from '../http/route-filters.js';
import { withCredentialQuery } from './provider-credential.js';

/** The compiled plan, or one sentence naming the field when it cannot be applied (the route refuses its requests then). */
export function providerShaping(t: IrTransformation, at: string): TransformPlan | string | undefined {
  const problems: string[] = [];
  const plan = compileTransformation(t, at, (path, message) => problems.push(`${path} ${message}`));
  if (plan?.response?.readsBody)
    problems.push(`${at}.response reads or replaces the body, which a provider's converted answer does not offer`);
  return problems.length > 0 ? problems.join('; ') : plan;
}

/** What a try sends, as the forwarder's Call holds it. */
export interface ProviderCallRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: string | Buffer | null;
}

/**
 * The call after the request step: the credential's headers are taken out while the step runs and put back
 * after it (its query too, when the step set `:path`). Throws a ProxyError (transformation_failed) naming the field.
 */
export function shapeProviderCall<C extends ProviderCallRequest>(
  step: TransformStep,
  call: C,
  credential: { headers: Record<string, string>; query: string },
  caller: TransformCaller,
  at: string,
): C {
  const shown: HeaderMap = {};
  for (const [k, v] of Object.entries(call.headers)) if (!(k in credential.headers)) shown[k] = v;
  const buffered = call.body === null ? null : Buffer.from(call.body);
  const out = transformRequest(
    step,
    { method: call.method, path: call.path, headers: shown, hasBody: buffered !== null, buffered },
    caller,
    at,
  );
  return {
    ...call,
    method: out.method,
    path: out.path === call.path ? call.path : withCredentialQuery(out.path, credential.query),
    headers: { ...out.headers, ...credential.headers },
    body: out.buffered,
  };
}

/**
 * Evaluates the response step on the provider's answer (`response.code`, `response.headers`) before anything
 * is written, and makes the next `writeHead` of `res` carry its header edits. A TransformFailure when an
 * expression fails (nothing has been written then).
 */
export function editAnswerHeaders(
  req: IncomingMessage,
  res: ServerResponse,
  step: TransformStep,
  up: { statusCode: number; headers: Record<string, string | string[] | undefined> },
  caller: TransformCaller,
  at: string,
): TransformFailure | undefined {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(up.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const values = evaluateStep(
    step,
    {
      request: requestOf(req),
      response: { code: up.statusCode, headers },
      ...(caller.claims ? { jwt: caller.claims } : {}),
      ...(caller.apiKey ? { apiKey: caller.apiKey } : {}),
    },
    at,
  );
  if (values instanceof TransformFailure) return values;
  onWriteHead(res, (current) => applyValues(step, { headers: current, body: null }, values).headers);
  return undefined;
}

/** Runs `edit` over the headers of the answer's one `writeHead` (those set before included). */
function onWriteHead(res: ServerResponse, edit: (headers: HeaderMap) => HeaderMap): void {
  const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
  const own = Object.prototype.hasOwnProperty.call(res, 'writeHead') ? res.writeHead : undefined;
  res.writeHead = function (status: number, ...rest: unknown[]) {
    if (own) res.writeHead = own;
    else delete (res as { writeHead?: unknown }).writeHead;
    const message = typeof rest[0] === 'string' ? rest[0] : undefined;
    const given = rest.at(-1);
    const current: HeaderMap = {};
    for (const [k, v] of Object.entries(res.getHeaders())) if (v !== undefined) current[k] = headerText(v);
    if (given && typeof given === 'object' && !Array.isArray(given))
      for (const [k, v] of Object.entries(given as Record<string, unknown>))
        if (v !== undefined) current[k.toLowerCase()] = headerText(v);
    const edited = edit(current);
    for (const name of res.getHeaderNames()) if (!(name in edited)) res.removeHeader(name);
    return message === undefined ? writeHead(status, edited) : writeHead(status, message, edited);
  } as ServerResponse['writeHead'];
}

function headerText(v: unknown): string | string[] {
  return Array.isArray(v) ? v.map(String) : String(v);
}
