// How a held stream is read back for response guards and written again after a modify (pure parts of held-stream.ts).
import { describe, expect, it } from 'vitest';
import { assembleStream, rewrittenStream } from '../../../src/proxy/llm/held-stream.js';
import { streamedText } from './llm-harness.js';

const head = { id: 'c-1', created: 5, model: 'm' };
const event = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
  `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;

// Two choices interleaved, one of them a tool call whose arguments arrive in pieces.
const stream = [
  event([{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }]),
  event([
    {
      index: 1,
      delta: {
        role: 'assistant',
        tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'look', arguments: '{"q":' } }],
      },
      finish_reason: null,
    },
  ]),
  event([{ index: 0, delta: { content: 'lo' }, finish_reason: null }]),
  event([{ index: 1, delta: { tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }, finish_reason: null }]),
  event([{ index: 0, delta: {}, finish_reason: 'stop' }]),
  event([{ index: 1, delta: {}, finish_reason: 'tool_calls' }]),
  event([], { usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }),
  'data: [DONE]\n\n',
].join('');

describe('held streams', () => {
  it('assembles every choice, tool-call arguments included, with the usage, as one chat.completion', () => {
    const held = assembleStream(stream);
    expect(held.completion).toEqual({
      ...head,
      object: 'chat.completion',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' },
        {
          index: 1,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 't1', type: 'function', function: { name: 'look', arguments: '{"q":"x"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
    expect(held.done).toBe(true);
  });

  it('rewrites a modified answer as a stream that assembles back to it, keeping usage and [DONE]', () => {
    const held = assembleStream(stream);
    const modified = structuredClone(held.completion);
    (modified.choices as { message: { content: string | null } }[])[0]!.message.content = 'H***o';
    const out = rewrittenStream(modified, held);
    expect(assembleStream(out).completion).toEqual(modified);
    expect(streamedText(out)).toBe('H***o');
    expect(out.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});
