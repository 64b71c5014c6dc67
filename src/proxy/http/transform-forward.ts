// Where GwPolicy transformations meet a forwarded request: the route's request step once per request (before
// the first try, so every retry resends the same edited request), the backend edge's per try (after the
// route's, before the edge's credential is added, so no expression sees or removes it), and on the way back
// the edge's response step, then the route's. Behaviour: docs/proxy.md "Transformations".
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { ProxyError } from '../proxy-error.js';
import { bufferResponse } from '../policy/buffer.js';
import { requestOf } from '../policy/direct-response.js';
import {
  applyStep,
  messageView,
  TransformFailure,
  type Message,
  type TransformPlan,
  type TransformStep,
} from '../policy/transformation.js';
import type { HeaderMap } from './route-filters.js';
import { withoutHopByHop } from './forward-headers.js';

/** Who called, as the expressions name them. */
export interface TransformCaller {
  claims?: Record<string, unknown> | null;
  apiKey?: Record<string, unknown>;
}

/** The largest answer a response step that reads the body holds, unless `traffic.buffer.response` says more. */
export const DEFAULT_TRANSFORM_RESPONSE_BYTES = 2 * 1024 * 1024;

/** A request as the forwarder sends it. */
export interface OutgoingRequest {
  method: string;
  path: string;
  headers: HeaderMap;
  hasBody: boolean;
  buffered: Buffer | null;
}

/** Some step of these plans needs the request body held whole. */
export function requestBodyRead(...plans: (TransformPlan | undefined)[]): boolean {
  return plans.some((p) => p?.request?.readsBody === true);
}

const callerBindings = (c: TransformCaller): { jwt?: Record<string, unknown>; apiKey?: Record<string, unknown> } => ({
  ...(c.claims ? { jwt: c.claims } : {}),
  ...(c.apiKey ? { apiKey: c.apiKey } : {}),
});

/** The request after `step`; a ProxyError (500 transformation_failed) naming the field when an expression fails. */
export function transformRequest<T extends OutgoingRequest>(
  step: TransformStep,
  out: T,
  caller: TransformCaller,
  at: string,
): T {
  const m: Message = { headers: out.headers, body: out.buffered, method: out.method, path: out.path };
  const done = applyStep(step, m, { request: messageView(m, step), ...callerBindings(caller) }, at);
  if (done instanceof TransformFailure) throw new ProxyError('transformation_failed', done.message);
  const body = done.body;
  return {
    ...out,
    method: done.method ?? out.method,
    path: done.path ?? out.path,
    headers: done.headers,
    buffered: body,
    hasBody: body ? body.length > 0 : out.hasBody,
  };
}

/** The response steps that apply, innermost (the backend edge's) first. */
export function responseSteps(
  route: TransformPlan | undefined,
  edge: TransformPlan | undefined,
): [TransformStep, string][] {
  const out: [TransformStep, string][] = [];
  if (edge?.response) out.push([edge.response, 'backend.transformation.response']);
  if (route?.response) out.push([route.response, 'traffic.transformation.response']);
  return out;
}

/** An answer after the response steps: its body whole when a step read it, else null (stream the backend's). */
export async function transformAnswer(
  req: IncomingMessage,
  up: { statusCode: number; headers: Record<string, string | string[] | undefined>; body: Readable },
  steps: [TransformStep, string][],
  caller: TransformCaller,
  maxBytes: number,
): Promise<{ headers: HeaderMap; body: Buffer | null }> {
  let body: Buffer | null = null;
  if (steps.some(([s]) => s.readsBody)) {
    const got = await bufferResponse(up.body, { maxBytes, failOpen: false }, Number(up.headers['content-length'] ?? 0));
    if (got.over) {
      up.body.destroy();
      throw new ProxyError(
        'response_too_large',
        `the answer exceeds ${maxBytes} bytes, the most a response transformation reads`,
      );
    }
    body = got.body;
  }
  let m: Message = { headers: withoutHopByHop(up.headers), body };
  const request = requestOf(req);
  for (const [step, at] of steps) {
    const response = messageView(m, step, { code: up.statusCode });
    const done = applyStep(step, m, { request, response, ...callerBindings(caller) }, at);
    if (done instanceof TransformFailure) throw new ProxyError('transformation_failed', done.message);
    m = done;
  }
  if (m.body) {
    delete m.headers['transfer-encoding'];
    m.headers['content-length'] = String(m.body.length);
  }
  return { headers: m.headers, body: m.body };
}
