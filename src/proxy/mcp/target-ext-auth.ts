// `backend.extAuth` of MCP targets whose settings differ (IR BackendRef.target_ext_authorization, and the
// edge's own for the others): a client request is checked by a target's service before it reaches that target,
// at most once per target and client request, and only when it does reach it: a call routed to the target
// (tools/call, prompts/get, resources/read…), a list fanned out to it, a subscriptions/listen. Both MCP
// generations go through here (endpoint.ts sets the request's gate up; session.ts and catalog.ts ask it).
// A denied call is answered with a JSON-RPC error; a denied target of a list adds nothing to it. The headers
// an allow sets on the request (allowedResponseHeaders, header mutations) go on that target's calls of this
// client request (http-target.ts), never on another target's nor on a later request's.
// Behaviour: docs/auth.md "Backend level".
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BackendRef, McpBackend } from '../../ir/types.js';
import { compileExtAuth, requestCopy, type ExtAuthClient, type ExtAuthRoute } from '../auth/ext-auth.js';
import { edgeVerdict } from '../auth/edge-ext-auth.js';
import { rpcError, type JsonRpcResponse } from './jsonrpc.js';
import { flatHeaders } from './request.js';

/** The JSON-RPC error code of a call a target's authorization service denied (implementation-defined range). */
export const TargetDenied = -32003;

/** Why a target may not serve this request: the HTTP status the service chose, and its body as text. */
export interface TargetDenial {
  target: string;
  status: number;
  message: string;
  body?: string;
}

/** Each target's compiled service (its own, else the edge's), or why one cannot be compiled. */
export function targetExtAuth(
  ref: BackendRef | undefined,
  backend: McpBackend | undefined,
): Map<string, ExtAuthRoute> | string | undefined {
  if (!ref || !backend || (!ref.extAuthorization && Object.keys(ref.targetExtAuthorization ?? {}).length === 0))
    return undefined;
  const out = new Map<string, ExtAuthRoute>();
  for (const t of backend.targets) {
    const setting = ref.targetExtAuthorization?.[t.name] ?? ref.extAuthorization;
    if (!setting) continue;
    const compiled = compileExtAuth(setting);
    if (typeof compiled === 'string') return `backend.extAuth of MCP target ${t.name} (${compiled})`;
    out.set(t.name, compiled);
  }
  return out;
}

/** One client request's checks: each target's verdict asked on first use and shared by the request's calls. */
export class TargetGate {
  private body: Buffer = Buffer.alloc(0);
  private readonly verdicts = new Map<string, Promise<TargetDenial | undefined>>();
  /** What each allowing verdict set on the request, by target. */
  private readonly allowed = new Map<string, Record<string, string>>();

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly check: {
      client: ExtAuthClient | undefined;
      route: string;
      targets: ReadonlyMap<string, ExtAuthRoute>;
      claims: Record<string, unknown> | null;
    },
  ) {}

  /** The client's body once the endpoint has read it: what `forwardBody` sends the services. */
  read(body: Buffer): void {
    this.body = body;
  }

  /** Undefined when the target has no service of its own (nothing to wait for). */
  denial(target: string): Promise<TargetDenial | undefined> | undefined {
    const ext = this.check.targets.get(target);
    if (!ext) return undefined;
    let v = this.verdicts.get(target);
    if (!v) this.verdicts.set(target, (v = this.ask(target, ext)));
    return v;
  }

  /** The headers `target`'s allowing verdict set or changed on the request (empty before it was asked). */
  headers(target: string): Record<string, string> | undefined {
    return this.allowed.get(target);
  }

  private async ask(target: string, ext: ExtAuthRoute): Promise<TargetDenial | undefined> {
    const { client, route, claims } = this.check;
    const c = { client, route, edge: `MCP target ${target}`, ext, claims, attributes: { 'gw.mcp.target': target } };
    const copy = requestCopy(this.req, this.body);
    const before = flatHeaders(copy);
    const v = await edgeVerdict(copy, this.res, c);
    if (v.kind === 'allow') {
      this.allowed.set(target, changedHeaders(before, flatHeaders(v.checked.req)));
      return undefined;
    }
    if (v.kind === 'deny') {
      const message = `target ${target}: the authorization service denied this request`;
      return { target, status: v.status, message, ...(v.body.length > 0 ? { body: v.body.toString('utf8') } : {}) };
    }
    const status = v.kind === 'refused' && v.code === 'payload_too_large' ? 413 : 403;
    return { target, status, message: `target ${target}: ${v.kind === 'refused' ? v.message : 'the client left'}` };
  }
}

/**
 * The headers an allow set or changed, as the request carries them after it (an append: the joined value). A
 * header it removed needs nothing: the proxy sends a target none of the client's headers. MCP's own headers and
 * the framing ones stay the proxy's.
 */
function changedHeaders(before: Record<string, string>, after: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(after))
    if (before[name] !== value && !name.startsWith('mcp-') && !framing.has(name)) out[name] = value;
  return out;
}

const framing = new Set(['host', 'content-type', 'content-length', 'accept', 'connection', 'transfer-encoding']);

const current = new AsyncLocalStorage<TargetGate>();

/** Runs `serve` with `gate` answering for the targets of this client request. */
export function withTargetGate<T>(gate: TargetGate, serve: () => Promise<T>): Promise<T> {
  return current.run(gate, serve);
}

/** The request's body, read by the endpoint, for the services that are sent it. */
export function gateBody(body: Buffer): void {
  current.getStore()?.read(body);
}

/** Whether the client request being served may reach `target`; undefined when it has no service to ask. */
export function targetDenial(target: string): Promise<TargetDenial | undefined> | undefined {
  return current.getStore()?.denial(target);
}

/**
 * The headers `target`'s service set when it allowed the client request being served, less those `own` names (the
 * target's credential and static headers stay the proxy's, as on any other edge).
 */
export function allowedHeaders(target: string, own: Record<string, string>): Record<string, string> | undefined {
  const set = current.getStore()?.headers(target);
  if (!set) return undefined;
  return Object.fromEntries(Object.entries(set).filter(([name]) => !(name in own)));
}

/** A denied call's answer: the service's HTTP status and body travel in the error's data. */
export function deniedCall(id: JsonRpcResponse['id'], d: TargetDenial): JsonRpcResponse {
  return rpcError(id, TargetDenied, d.message, {
    target: d.target,
    status: d.status,
    ...(d.body !== undefined ? { body: d.body } : {}),
  });
}

/** Those of `targets` this client request may reach (a subscriptions/listen opens streams to each). */
export async function allowedTargets<T extends { name: string }>(targets: T[]): Promise<T[]> {
  const gate = current.getStore();
  if (!gate) return targets;
  const denied = await Promise.all(targets.map((t) => gate.denial(t.name)));
  return targets.filter((_, i) => !denied[i]);
}
