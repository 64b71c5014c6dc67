// The pipeline's `a2a` stage on routes to A2A agents (after authentication, before authorization): an agent
// card fetch gets its answer rewritten to name the gateway (card.ts); a JSON-RPC call is read within the
// route's limit (call.ts) so authorization sees `a2a.*`, telemetry names the method and the proxy's own
// errors become JSON-RPC errors with the call's id. On a route with authorization rules a request the gateway
// cannot read as either is refused: a rule about methods must not be dodged by a request it cannot see.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson, answerErrorsAsJsonRpc } from '../http/http-error.js';
import { upstreamTargetOf, type ForwardRoute } from '../http/http-forward.js';
import type { UpstreamResponse } from '../http/h2-upstream.js';
import { schemeOf } from '../http/route-filters.js';
import { splitTarget } from '../http/route-match.js';
import { endsOnDrain } from '../http/drain.js';
import { copyOf } from '../ext/ext-proc-request.js';
import { withBody, type AnswerHook } from '../ext/ext-proc-answer.js';
import { bufferResponse } from '../policy/buffer.js';
import { isJsonType, readBody } from '../mcp/request.js';
import { rpcError } from '../mcp/jsonrpc.js';
import { cardBase, isCardFetch, rewriteCard, type CardPlace } from './card.js';
import { readCall, type A2aFacts } from './call.js';

/** The largest card the gateway rewrites; a larger one is refused (passing it on would leak the agent's address). */
export const maxCardBytes = 1024 * 1024;

export interface A2aRead {
  /** The request to go on with: a copy carrying the body that was read. */
  req: IncomingMessage;
  /** The call, when the request is one (CEL `a2a`). */
  facts?: A2aFacts;
  /** Rewrites the agent's answer (a card) before the client gets it. */
  answer?: AnswerHook;
}

export interface A2aRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request's normalised path. */
  path: string;
  route: ForwardRoute;
  /** The route has authorization rules: what cannot be read is refused. */
  policed: boolean;
  /** The route's request body limit. */
  limit: number;
  /** A call was read: metrics and telemetry. */
  onCall(facts: A2aFacts, id: string | number): void;
}

/** Reads the request; undefined when the client already has its answer. */
export async function readA2a(a: A2aRequest): Promise<A2aRead | undefined> {
  const { req, res } = a;
  if (isCardFetch(req.method, a.path)) return withPlace(a, copyOf(req, identityHeaders(req), undefined), cardAnswer);
  if (req.method !== 'POST' || !isJsonType(req.headers['content-type'])) return unread(a, { req });
  // The agent may also serve its HTTP+JSON binding, where the path (not the body) names the method: on a route
  // with rules a JSON body at such a path would be judged by one method and run as another, so it is refused.
  if (a.policed && isRestPath(a.path)) return unread(a, { req });
  const body = await readBody(req, res, a.limit);
  if (!body) return undefined;
  const call = readCall(body);
  if (call.kind === 'unreadable') {
    if (!a.policed) return { req: copyOf(req, { ...req.headers }, { kind: 'bytes', body }) };
    sendJson(res, 400, rpcError(call.id, call.code, call.reason));
    return undefined;
  }
  answerErrorsAsJsonRpc(res, call.id);
  a.onCall(call.facts, call.id);
  // A resubscription only watches a task: on drain it ends, and the client subscribes again elsewhere.
  if (call.facts.method === 'SubscribeToTask') endsOnDrain(res);
  if (call.facts.method !== 'GetExtendedAgentCard')
    return { req: copyOf(req, { ...req.headers }, { kind: 'bytes', body }), facts: call.facts };
  return withPlace(a, copyOf(req, identityHeaders(req), { kind: 'bytes', body }), extendedCardAnswer, call.facts);
}

/**
 * A path of A2A's HTTP+JSON binding (`/message:send`, `/tasks/{id}:cancel`, `/v1/tasks/{id}`,
 * `/tasks/{id}/pushNotificationConfigs`, `/extendedAgentCard`, `/v1/card`): a segment with a `:` or one of its
 * resource names.
 */
export function isRestPath(path: string): boolean {
  return path
    .split('/')
    .some(
      (seg) => seg.includes(':') || ['tasks', 'pushNotificationConfigs', 'extendedAgentCard', 'card'].includes(seg),
    );
}

/** A request that is neither a card fetch nor a JSON-RPC call: forwarded as it is, unless rules must see it. */
function unread(a: A2aRequest, read: A2aRead): A2aRead | undefined {
  if (!a.policed) return read;
  a.req.resume();
  sendError(
    a.res,
    'forbidden',
    `route ${a.route.name} has authorization rules, and this request is neither an A2A JSON-RPC call nor an agent card fetch`,
  );
  return undefined;
}

/** The client's headers without Accept-Encoding: a card is read and rewritten here, so it must come uncompressed. */
function identityHeaders(req: IncomingMessage): IncomingMessage['headers'] {
  const headers = { ...req.headers };
  delete headers['accept-encoding'];
  return headers;
}

/** The hook that rewrites a card answer, once the gateway's address as the client reached it is known. */
function withPlace(
  a: A2aRequest,
  req: IncomingMessage,
  hook: (p: CardPlace) => AnswerHook,
  facts?: A2aFacts,
): A2aRead | undefined {
  const host = String(a.req.headers.host ?? a.req.headers[':authority'] ?? '');
  // Only a host name or address with an optional port goes into a URL the client will follow.
  if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) {
    a.req.resume();
    sendError(a.res, 'invalid_host', 'the request names no usable Host for the agent card to point at');
    return undefined;
  }
  // A card fetch's base is its path without the well-known part; a JSON-RPC call's is the endpoint's path.
  const upstreamPath = splitTarget(upstreamTargetOf(a.req, a.route).target).path;
  const place = {
    origin: `${schemeOf(a.req)}://${host}`,
    clientBase: cardBase(a.path),
    upstreamBase: cardBase(upstreamPath),
  };
  return { req, answer: hook(place), ...(facts ? { facts } : {}) };
}

/** The agent's answer read whole (bounded); undefined when the client was answered instead. */
async function cardText(up: UpstreamResponse, res: ServerResponse): Promise<unknown> {
  const encoding = String(up.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    await up.body.dump();
    sendError(res, 'bad_gateway', `the agent sent its card ${encoding}-encoded, which the gateway cannot rewrite`);
    return undefined;
  }
  const read = await bufferResponse(
    up.body,
    { maxBytes: maxCardBytes, failOpen: false },
    Number(up.headers['content-length'] ?? 0),
  );
  if (read.over) {
    up.body.destroy();
    sendError(res, 'response_too_large', `the agent's card exceeds the ${maxCardBytes} bytes the gateway rewrites`);
    return undefined;
  }
  try {
    return JSON.parse(read.body.toString('utf8')) as unknown;
  } catch {
    sendError(res, 'bad_gateway', "the agent's card is not JSON");
    return undefined;
  }
}

/** The answer with a new JSON body; ETag and Content-MD5 described the agent's bytes. */
function withJson(up: UpstreamResponse, value: unknown): UpstreamResponse {
  const headers: UpstreamResponse['headers'] = { ...up.headers, 'content-type': 'application/json' };
  delete headers.etag;
  delete headers['content-md5'];
  return withBody(up, headers, { kind: 'bytes', body: Buffer.from(JSON.stringify(value)) });
}

/** A public card fetch: a 2xx answer is a card whatever its content type says. */
const cardAnswer =
  (p: CardPlace): AnswerHook =>
  async (up, res) => {
    if (up.statusCode < 200 || up.statusCode >= 300) return up;
    const card = await cardText(up, res);
    return card === undefined ? undefined : withJson(up, rewriteCard(card, p));
  };

/** `GetExtendedAgentCard`: the JSON-RPC result is the card (an error answer passes as it is). */
const extendedCardAnswer =
  (p: CardPlace): AnswerHook =>
  async (up, res) => {
    if (up.statusCode < 200 || up.statusCode >= 300) return up;
    const answer = await cardText(up, res);
    if (answer === undefined) return undefined;
    const m = answer as { result?: unknown };
    return withJson(up, m && typeof m === 'object' && 'result' in m ? { ...m, result: rewriteCard(m.result, p) } : m);
  };

/** Both hooks in order: the card rewrite first, then (on what it returns) the external processor's. */
export function chainAnswers(first: AnswerHook | undefined, then: AnswerHook | undefined): AnswerHook | undefined {
  if (!first || !then) return first ?? then;
  return async (up, res) => {
    const mid = await first(up, res);
    return mid && then(mid, res);
  };
}
