// `backend.extAuth` of one edge of a route (an HTTP backend the weighted pick chose, an AI provider before a
// try of it, an MCP target before a call to it), asked once that edge is chosen, after the route's own checks.
// Behaviour: docs/auth.md "Backend level".
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Attributes } from '@opentelemetry/api';
import { sendError } from '../http/http-error.js';
import { telemetryOf } from '../telemetry/request-telemetry.js';
import type { ExtAuthClient, ExtAuthRoute, Verdict } from './ext-auth.js';

export interface EdgeCheck {
  /** Unset when the proxy was built without one: an edge that has a setting then fails closed. */
  client: ExtAuthClient | undefined;
  route: string;
  /** The edge as error bodies name it: `provider openai`, `backend default/b1`, `MCP target weather`. */
  edge: string;
  ext: ExtAuthRoute;
  claims: Record<string, unknown> | null;
  /** Added to the check's span. */
  attributes?: Attributes;
}

const unaskable = (c: EdgeCheck): string =>
  `${c.edge} of route ${c.route} has backend.extAuth, which this proxy cannot ask`;

/** Asks the edge's service: the request to continue with, or undefined once the client was answered. */
export async function authorizeEdge(
  req: IncomingMessage,
  res: ServerResponse,
  c: EdgeCheck,
): Promise<IncomingMessage | undefined> {
  if (!c.client) {
    req.resume();
    sendError(res, 'policy_not_enforced', unaskable(c));
    return undefined;
  }
  const call = telemetryOf(res)?.call('ext_authz');
  const checked = await c.client.check(req, res, c.route, c.ext, c.claims, call?.headers);
  call?.end({ 'gw.ext_authz.allowed': checked !== undefined, ...c.attributes });
  return checked?.req;
}

/** The edge's verdict without answering the client (an MCP target's call answers a denial itself). */
export async function edgeVerdict(req: IncomingMessage, res: ServerResponse, c: EdgeCheck): Promise<Verdict> {
  if (!c.client) return { kind: 'refused', code: 'forbidden', message: unaskable(c) };
  const call = telemetryOf(res)?.call('ext_authz');
  const v = await c.client.decide(req, c.route, c.ext, c.claims, call?.headers);
  call?.end({ 'gw.ext_authz.allowed': v.kind === 'allow', ...c.attributes });
  return v;
}
