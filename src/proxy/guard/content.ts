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
 */
export function rewriteTexts(
  body: Json,
  phase: GuardPhase,
  scopes: ReadonlySet<ContentScope>,
  fn: (text: string) => string,
): Json | undefined {
  const copy = structuredClone(body);
  let changed = false;
  const visit = (holder: Json, key: string | number, scope: ContentScope): void => {
    if (!scopes.has(scope)) return;
    const h = holder as Record<string | number, unknown>;
    const v = h[key];
    if (typeof v !== 'string') return;
    const out = fn(v);
    if (out !== v) {
      h[key] = out;
      changed = true;
    }
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
    if (Array.isArray(copy.messages)) for (const m of copy.messages) message(m);
  } else if (Array.isArray(copy.choices)) {
    for (const c of copy.choices) if (isRec(c)) message(c.message);
  }
  return changed ? copy : undefined;
}
