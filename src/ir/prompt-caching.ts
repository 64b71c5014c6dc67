// Which models take the cache breakpoints of `backend.ai.promptCaching` (docs/llm-providers.md "Prompt
// caching"): shared by the translator, which reports a provider or a fixed model that cannot cache on
// status, and the proxy, which places breakpoints only where the vendor accepts them. Pure.

/** The wire formats whose requests carry breakpoints: Anthropic messages and Bedrock Converse. */
export type CachingFormat = 'anthropic' | 'bedrock';

/** Where a model family takes breakpoints; undefined when it takes none. */
export interface CachingSupport {
  system: boolean;
  messages: boolean;
  tools: boolean;
}

const ALL: CachingSupport = { system: true, messages: true, tools: true };
/** Amazon Nova caches the system prompt and messages, not tool definitions. */
const NO_TOOLS: CachingSupport = { system: true, messages: true, tools: false };

// Claude families with prompt caching: 3 Haiku and 3 Opus, 3.5, 3.7 and every generation from 4 on
// (`claude-sonnet-4-…`, `claude-opus-4-1-…`, `claude-4-…`). Claude 2, Instant and 3 Sonnet have none.
const CLAUDE = /claude-(?:3-(?:haiku|opus)|3-[57]-|(?:opus|sonnet|haiku)-[4-9]|[4-9][-.])/;
// On Bedrock (generally available): Claude 3.5 Haiku, 3.7 Sonnet and from 4 on; Amazon Nova Micro, Lite, Pro, Premier.
const BEDROCK_CLAUDE = /anthropic\.claude-(?:3-5-haiku|3-7-|(?:opus|sonnet|haiku)-[4-9]|[4-9][-.])/;
const NOVA = /amazon\.nova-(?:micro|lite|pro|premier)/;

/** Where `model` of a provider speaking `format` takes cache breakpoints; undefined when it does not. */
export function cachingSupport(format: string, model: string): CachingSupport | undefined {
  const m = model.toLowerCase();
  if (format === 'anthropic') return CLAUDE.test(m) ? ALL : undefined;
  if (format === 'bedrock') {
    if (BEDROCK_CLAUDE.test(m)) return ALL;
    if (NOVA.test(m)) return NO_TOOLS;
  }
  return undefined;
}

/** Provider kinds whose wire format carries breakpoints (the others answer in OpenAI's format and cache on their own, if at all). */
export const CACHING_KINDS: ReadonlySet<string> = new Set<CachingFormat>(['anthropic', 'bedrock']);
