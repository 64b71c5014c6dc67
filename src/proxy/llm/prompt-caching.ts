// `backend.ai.promptCaching`: cache breakpoints placed on a converted request (Anthropic `cache_control`,
// Bedrock Converse `cachePoint`) at the end of the system prompt, of the tool definitions and of the
// conversation so far, for the model families that take them (src/ir/prompt-caching.ts). Writes into the
// converted request, which is the call's own object. Behaviour: docs/llm-providers.md "Prompt caching".
import type { AiPromptCaching__Output as AiPromptCaching } from '../../ir/gen/gw/ir/v1/AiPromptCaching.js';
import { cachingSupport, type CachingSupport } from '../../ir/prompt-caching.js';
import type { WireFormat } from './vendors.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const EPHEMERAL = { type: 'ephemeral' } as const;
const CACHE_POINT = { cachePoint: { type: 'default' } } as const;

/** Where breakpoints go for this call: the setting narrowed to what the model family takes; undefined for none. */
function placesFor(
  caching: AiPromptCaching | null | undefined,
  format: WireFormat,
  model: string,
): CachingSupport | undefined {
  if (!caching) return undefined;
  const support = cachingSupport(format, model);
  if (!support) return undefined;
  const places = {
    system: caching.system && support.system,
    messages: caching.messages && support.messages,
    tools: caching.tools && support.tools,
  };
  return places.system || places.messages || places.tools ? places : undefined;
}

/** The number of breakpoints placed in `req` (an Anthropic messages or Converse request converted for this call). */
export function placeCacheBreakpoints(
  req: Obj,
  caching: AiPromptCaching | null | undefined,
  format: WireFormat,
  model: string,
): number {
  const places = placesFor(caching, format, model);
  if (!places) return 0;
  return format === 'anthropic' ? anthropicBreakpoints(req, places) : converseBreakpoints(req, places);
}

/** `cache_control` on the last system block, the last tool and the last content block of the last message. */
function anthropicBreakpoints(req: Obj, places: CachingSupport): number {
  let placed = 0;
  if (places.system && typeof req.system === 'string' && req.system !== '') {
    req.system = [{ type: 'text', text: req.system, cache_control: EPHEMERAL }];
    placed++;
  }
  const mark = (block: unknown): void => {
    if (!isObject(block)) return;
    block.cache_control = EPHEMERAL;
    placed++;
  };
  if (places.tools && Array.isArray(req.tools)) mark(req.tools[req.tools.length - 1]);
  if (places.messages && Array.isArray(req.messages)) {
    const last: unknown = req.messages[req.messages.length - 1];
    const content = isObject(last) && Array.isArray(last.content) ? (last.content as unknown[]) : [];
    mark(content[content.length - 1]);
  }
  return placed;
}

/** A `cachePoint` block after the system blocks, after the tool specs and after the last message's content. */
function converseBreakpoints(req: Obj, places: CachingSupport): number {
  let placed = 0;
  const append = (list: unknown): void => {
    if (!Array.isArray(list) || list.length === 0) return;
    list.push({ ...CACHE_POINT });
    placed++;
  };
  if (places.system) append(req.system);
  if (places.tools && isObject(req.toolConfig)) append(req.toolConfig.tools);
  if (places.messages && Array.isArray(req.messages)) {
    const last: unknown = req.messages[req.messages.length - 1];
    if (isObject(last)) append(last.content);
  }
  return placed;
}
