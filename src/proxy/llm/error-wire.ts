// Which error wire format a request's own errors take (http-error.ts writes them): LLM clients read
// their vendor's shape and show nothing else. An LLM route answers in it always; a path shaped like an
// LLM API call does too where no usable route answers but the listener serves LLM traffic (404 no route)
// or the route lost its backends (a credential that cannot be resolved: 500).
import type { CompiledListener, CompiledRoute } from '../compiled.js';
import type { ErrorWire } from '../http/http-error.js';

const LLM_PATH = /\/(chat\/completions|completions|embeddings|models|responses|messages(\/count_tokens)?)$/;
const servesLlm = new WeakMap<CompiledListener, boolean>();

export function errorWireOf(
  path: string,
  route: CompiledRoute | undefined,
  listener: CompiledListener | undefined,
): ErrorWire | undefined {
  const llmPath = LLM_PATH.test(path);
  if (!route?.llm && !(llmPath && (route ? route.noBackend : listener && listenerServesLlm(listener))))
    return undefined;
  return /\/messages(\/count_tokens)?$/.test(path) ? 'anthropic' : 'openai';
}

function listenerServesLlm(listener: CompiledListener): boolean {
  let v = servesLlm.get(listener);
  if (v === undefined) servesLlm.set(listener, (v = listener.routes.some((r) => r.llm !== undefined)));
  return v;
}
