// OpenAI chat-completions requests: what a valid one looks like, and the edge's shaping (model aliases,
// defaults, overrides, prompt enrichment, the provider's model). Pure: JSON in, JSON out.
import type { AiProviderEdge__Output as AiProviderEdge } from '../../ir/gen/gw/ir/v1/AiProviderEdge.js';

export type ChatBody = Record<string, unknown>;

export type Checked = { ok: true; body: ChatBody } | { ok: false; field: string; message: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parsed body as a chat request, or the first field that makes it none (`messages[2].role`). */
export function checkChatRequest(text: string): Checked {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, field: 'body', message: 'is not valid JSON' };
  }
  if (!isObject(body)) return { ok: false, field: 'body', message: 'must be a JSON object' };
  if (body.model !== undefined && typeof body.model !== 'string')
    return { ok: false, field: 'model', message: 'must be a string' };
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return { ok: false, field: 'messages', message: 'must be a non-empty array' };
  for (const [i, m] of body.messages.entries()) {
    if (!isObject(m)) return { ok: false, field: `messages[${i}]`, message: 'must be an object' };
    if (typeof m.role !== 'string' || m.role === '')
      return { ok: false, field: `messages[${i}].role`, message: 'must be a non-empty string' };
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    return { ok: false, field: 'stream', message: 'must be a boolean' };
  return { ok: true, body };
}

/**
 * The request one provider gets, in the client's format: aliases map the requested model, defaults fill
 * fields the client left out, overrides replace, the prompt is enriched, and the provider's own `model`
 * setting wins over all of them. Fails only when no model is left.
 */
export function shapeChatRequest(
  body: ChatBody,
  edge: AiProviderEdge | undefined,
  providerModel: string | undefined,
): Checked {
  // Only defaults and overrides write below the top level: other shaping replaces top-level fields of a
  // shallow copy, and nothing downstream writes into a body (guards rewrite a copy).
  const out = edge && edge.defaults.length + edge.overrides.length > 0 ? structuredClone(body) : { ...body };
  if (edge) {
    const alias = typeof out.model === 'string' ? edge.modelAliases[out.model] : undefined;
    if (alias) out.model = alias;
    for (const d of edge.defaults)
      if (getPath(out, d.field) === undefined) setPath(out, d.field, JSON.parse(d.valueJson));
    for (const o of edge.overrides) setPath(out, o.field, JSON.parse(o.valueJson));
    if (edge.promptPrepend.length + edge.promptAppend.length > 0 && Array.isArray(out.messages)) {
      const msg = (m: { role: string; content: string }) => ({ role: m.role, content: m.content });
      out.messages = [...edge.promptPrepend.map(msg), ...(out.messages as unknown[]), ...edge.promptAppend.map(msg)];
    }
  }
  if (providerModel) out.model = providerModel;
  if (typeof out.model !== 'string' || out.model === '')
    return { ok: false, field: 'model', message: 'is required (the provider sets no model)' };
  return { ok: true, body: out };
}

/** `a.b.c` of an object; undefined when any step is missing. */
function getPath(obj: Record<string, unknown>, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

/** Sets `a.b.c`, creating objects on the way (a non-object in the way is replaced). */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  if (parts.some((p) => p === '__proto__' || p === 'constructor' || p === 'prototype')) return;
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (isObject(next)) cur = next;
    else cur = cur[part] = {};
  }
  cur[parts[parts.length - 1] as string] = value;
}

/** Removes `a.b.c` when it exists; objects on the way are left as they are. */
export function deletePath(obj: Record<string, unknown>, path: string): void {
  const parts = path.split('.');
  const parent = parts.length > 1 ? getPath(obj, parts.slice(0, -1).join('.')) : obj;
  if (isObject(parent)) delete parent[parts[parts.length - 1] as string];
}
