// OpenAI chat-completions shapes the converting wire formats answer in (a completion, a stream chunk,
// usage), built in one place. Pure.

/** Tokens of one answer (the same shape as anthropic.ts `Usage`, declared here so neither file imports the other). */
interface Usage {
  input: number;
  output: number;
  /** Input tokens read from the provider's prompt cache (Anthropic, Bedrock). */
  cacheRead?: number;
}

type Obj = Record<string, unknown>;

/** What every chunk and completion of one answer repeats. */
export interface AnswerHead {
  id: unknown;
  created: number;
  model: unknown;
}

/** OpenAI's usage object; cache reads also as `prompt_tokens_details.cached_tokens`, as OpenAI reports its own. */
export function openAiUsageOf(u: Usage): Obj {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    ...(u.cacheRead ? { prompt_tokens_details: { cached_tokens: u.cacheRead } } : {}),
  };
}

/** One `chat.completion.chunk` SSE event for choice 0. */
export function chunkEvent(head: AnswerHead, delta: Obj, finish: string | null = null): string {
  const c = { ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(c)}\n\n`;
}

/** The closing usage chunk (`stream_options.include_usage`). */
export function usageEvent(head: AnswerHead, u: Usage): string {
  return `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage: openAiUsageOf(u) })}\n\n`;
}

/** A buffered `chat.completion` with one assistant choice: text (null when only tool calls) and tool calls. */
export function chatCompletion(head: AnswerHead, text: string, calls: Obj[], finish: string | null, u: Usage): Obj {
  return {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && calls.length > 0 ? null : text,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: finish,
      },
    ],
    usage: openAiUsageOf(u),
  };
}
