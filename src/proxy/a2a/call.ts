// What an A2A request asks for, read once on the request path (pipeline stage `a2a`): the JSON-RPC method
// under its A2A 1.0 name whichever spelling the client used (0.3's `message/send` is 1.0's `SendMessage`, so
// a rule written against one name cannot be dodged with the other), and the task id, context id and message
// role the policy variables `a2a.*` carry. Bounded: the body is read within the route's limit and refused
// when it nests deeper than MCP messages may (jsonrpc.ts).
import { classify, isRequest, maxNesting, nestedDeeperThan, type Id } from '../mcp/jsonrpc.js';

/** A2A 0.3 JSON-RPC names → A2A 1.0 names (the 1.0 names map to themselves). */
const legacyNames: Record<string, string> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/list': 'ListTasks',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
};

/** A2A 0.3's push-notification config methods that name their task `params.id`. */
const legacyConfigById = new Set([
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
]);

/** The A2A 1.0 methods: the label values of the request metric (anything else counts as `other`). */
export const a2aMethods = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);

/** Methods whose answer is an SSE stream. */
export const streamingMethods = new Set(['SendStreamingMessage', 'SubscribeToTask']);

/** CEL `a2a`: every member is a string, empty when the request does not carry it. */
export interface A2aFacts {
  /** The A2A 1.0 name (`SendMessage`), whichever spelling was sent; an unknown method keeps its own. */
  method: string;
  /** The name as the client sent it (`message/send` or `SendMessage`). */
  rpcMethod: string;
  taskId: string;
  contextId: string;
  /** The message's role, `user` or `agent` (1.0's `ROLE_USER` and 0.3's `user` alike). */
  role: string;
}

export interface A2aCall {
  kind: 'call';
  id: Id;
  facts: A2aFacts;
}

/** Why a body is not one A2A JSON-RPC request: answered with the JSON-RPC error `code` (id when known). */
export interface A2aUnreadable {
  kind: 'unreadable';
  id: Id | null;
  code: number;
  reason: string;
}

export const canonicalMethod = (name: string): string => legacyNames[name] ?? name;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** `ROLE_USER` / `user` → `user`; anything else is kept lower-cased so a rule never matches it by accident. */
function roleOf(v: unknown): string {
  return str(v)
    .toLowerCase()
    .replace(/^role_/, '');
}

/** Reads one JSON-RPC request out of an A2A POST body. */
export function readCall(body: Buffer): A2aCall | A2aUnreadable {
  const text = body.toString('utf8');
  if (nestedDeeperThan(text))
    return { kind: 'unreadable', id: null, code: -32600, reason: `the request nests deeper than ${maxNesting} levels` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', id: null, code: -32700, reason: 'the request body is not JSON' };
  }
  // A2A defines no batches: an array is one request the gateway cannot attribute to a single method.
  if (Array.isArray(value))
    return {
      kind: 'unreadable',
      id: null,
      code: -32600,
      reason: 'A2A requests are single JSON-RPC requests, not batches',
    };
  const m = classify(value);
  if (!m || !isRequest(m)) {
    const id = obj(value).id;
    return {
      kind: 'unreadable',
      id: typeof id === 'string' || typeof id === 'number' ? id : null,
      code: -32600,
      reason: 'the body is not a JSON-RPC 2.0 request with an id',
    };
  }
  return { kind: 'call', id: m.id, facts: factsOf(m.method, obj(m.params)) };
}

/** The ids a method's params name: 1.0 and 0.3 put them in the same places except push-notification configs. */
function factsOf(rpcMethod: string, params: Record<string, unknown>): A2aFacts {
  const method = canonicalMethod(rpcMethod);
  const message = obj(params.message);
  const facts = { method, rpcMethod, taskId: '', contextId: '', role: '' };
  if (method === 'SendMessage' || method === 'SendStreamingMessage')
    return { ...facts, taskId: str(message.taskId), contextId: str(message.contextId), role: roleOf(message.role) };
  if (method === 'ListTasks') return { ...facts, contextId: str(params.contextId) };
  // Push-notification configs name their task `taskId` (1.0, and 0.3's set) or `id` (0.3's get, list, delete):
  // the field is chosen by the name sent, as the agent chooses it, never the first one present (a decoy
  // `taskId` beside the real `id` would be judged while the agent serves `id`).
  if (method.includes('PushNotificationConfig'))
    return { ...facts, taskId: legacyConfigById.has(rpcMethod) ? str(params.id) : str(params.taskId) };
  return { ...facts, taskId: str(params.id) };
}
