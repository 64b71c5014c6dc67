// Where the text of an OpenAI chat-completions body lives, by ContentScope, so regex guards read and
// rewrite exactly the scopes they were given and nothing else (ids, model names, JSON keys stay put).
import type { ContentScope__Output as ContentScope } from '../../ir/gen/gw/ir/v1/ContentScope.js';

export type GuardPhase = 'request' | 'response';
type Json = Record<string, unknown>;

const isRec = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The scope of a message's `content` by its role; unknown roles count as Messages so nothing goes unchecked. */
function roleScope(role: unknown): ContentScope {
  if (role === 'system' || role === 'developer') return 'SCOPE_SYSTEM_PROMPT';
  if (role === 'tool' || role === 'function') return 'SCOPE_TOOL_OUTPUT';
  return 'SCOPE_MESSAGES';
}

/**
 * Calls `fn` on every text in `scopes` and returns a copy of `body` with the texts `fn` returned, or
 * undefined when nothing changed. Request bodies: `messages[]` (content as a string or text parts;
 * `tool_calls[].function.arguments` is ToolInput). Response bodies: `choices[].message` likewise.
 * The body is copied only when a text changed (most pass unchanged): the same walk of the copy then
 * writes the texts `fn` already returned, in order.
 */
export function rewriteTexts(
  body: Json,
  phase: GuardPhase,
  scopes: ReadonlySet<ContentScope>,
  fn: (text: string) => string,
): Json | undefined {
  const outs: string[] = [];
  let changed = false;
  walkTexts(body, phase, scopes, (text) => {
    const out = fn(text);
    if (out !== text) changed = true;
    outs.push(out);
    return text;
  });
  if (!changed) return undefined;
  const copy = structuredClone(body);
  let i = 0;
  walkTexts(copy, phase, scopes, () => outs[i++] as string);
  return copy;
}

/** Replaces every text of `body` in `scopes` with what `fn` returns, in document order. */
function walkTexts(
  body: Json,
  phase: GuardPhase,
  scopes: ReadonlySet<ContentScope>,
  fn: (text: string) => string,
): void {
  const visit = (holder: Json, key: string | number, scope: ContentScope): void => {
    if (!scopes.has(scope)) return;
    const h = holder as Record<string | number, unknown>;
    const v = h[key];
    if (typeof v !== 'string') return;
    const out = fn(v);
    if (out !== v) h[key] = out;
  };
  const message = (m: unknown): void => {
    if (!isRec(m)) return;
    const scope = roleScope(m.role);
    if (typeof m.content === 'string') visit(m, 'content', scope);
    else if (Array.isArray(m.content))
      for (const part of m.content) if (isRec(part) && typeof part.text === 'string') visit(part, 'text', scope);
    if (Array.isArray(m.tool_calls))
      for (const c of m.tool_calls)
        if (isRec(c) && isRec(c.function)) visit(c.function, 'arguments', 'SCOPE_TOOL_INPUT');
    if (isRec(m.function_call)) visit(m.function_call, 'arguments', 'SCOPE_TOOL_INPUT');
  };
  if (phase === 'request') {
    if (Array.isArray(body.messages)) for (const m of body.messages) message(m);
  } else if (Array.isArray(body.choices)) {
    for (const c of body.choices) if (isRec(c)) message(c.message);
  }
}
