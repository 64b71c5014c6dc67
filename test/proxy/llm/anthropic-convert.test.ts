// The pure OpenAI ⇄ Anthropic conversions on inputs the wire tests do not produce: images, tool streams,
// stream errors, finish reasons and cached-token usage.
import { describe, expect, it } from 'vitest';
import {
  AnthropicStreamConverter,
  fromAnthropicResponse,
  toAnthropicRequest,
} from '../../../src/proxy/llm/anthropic.js';

const chunks = (sse: string): Record<string, unknown>[] =>
  sse
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);

describe('OpenAI → Anthropic requests', () => {
  it('turns data URLs into base64 image sources and other URLs into url sources, dropping unknown parts', () => {
    const out = toAnthropicRequest({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.test/cat.jpg' } },
            { type: 'input_audio', input_audio: {} },
          ],
        },
      ],
    });
    expect(out.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.test/cat.jpg' } },
        ],
      },
    ]);
  });

  it('joins system and developer messages, prefers max_completion_tokens and maps a named tool choice', () => {
    const out = toAnthropicRequest({
      model: 'm',
      max_tokens: 10,
      max_completion_tokens: 20,
      user: 'u-1',
      stop: ['a', 'b'],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      messages: [
        { role: 'system', content: 'One.' },
        { role: 'developer', content: [{ type: 'text', text: 'Two.' }] },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(out).toMatchObject({
      system: 'One.\n\nTwo.',
      max_tokens: 20,
      metadata: { user_id: 'u-1' },
      stop_sequences: ['a', 'b'],
      tool_choice: { type: 'tool', name: 'lookup' },
    });
  });
});

describe('Anthropic → OpenAI responses', () => {
  it('maps tool use to tool_calls with null content, and counts cached input tokens as prompt tokens', () => {
    const out = fromAnthropicResponse(
      {
        id: 'msg_2',
        model: 'claude',
        stop_reason: 'tool_use',
        content: [{ type: 'tool_use', id: 'tu_1', name: 'lookup', input: { q: 'x' } }],
        usage: { input_tokens: 3, cache_read_input_tokens: 10, output_tokens: 4 },
      },
      1700000000,
    );
    expect(out).toEqual({
      id: 'msg_2',
      object: 'chat.completion',
      created: 1700000000,
      model: 'claude',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'tu_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: 13,
        completion_tokens: 4,
        total_tokens: 17,
        prompt_tokens_details: { cached_tokens: 10 },
      },
    });
  });

  it('maps max_tokens to length and refusal to content_filter', () => {
    const reason = (stop: string) =>
      (fromAnthropicResponse({ content: [], stop_reason: stop }, 0).choices as { finish_reason: string }[])[0]
        ?.finish_reason;
    expect([reason('max_tokens'), reason('refusal'), reason('stop_sequence')]).toEqual([
      'length',
      'content_filter',
      'stop',
    ]);
  });
});

describe('Anthropic → OpenAI streams', () => {
  it('streams a tool call as tool_calls deltas with a stable index per tool block', () => {
    const c = new AnthropicStreamConverter(5, false);
    const events: [string, unknown][] = [
      ['message_start', { message: { id: 'msg_3', model: 'claude', usage: { input_tokens: 7, output_tokens: 1 } } }],
      ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Let me look.' } }],
      ['content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'tu_9', name: 'lookup', input: {} } }],
      ['content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"q":' } }],
      ['content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '"x"}' } }],
      ['message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }],
      ['message_stop', {}],
    ];
    const out = chunks(events.map(([t, d]) => c.event(t, JSON.stringify(d))).join('') + c.end());
    expect(out.map((o) => (o.choices as { delta: unknown; finish_reason: unknown }[])[0])).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      { index: 0, delta: { content: 'Let me look.' }, finish_reason: null },
      {
        index: 0,
        delta: {
          tool_calls: [{ index: 0, id: 'tu_9', type: 'function', function: { name: 'lookup', arguments: '' } }],
        },
        finish_reason: null,
      },
      { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }, finish_reason: null },
      { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }, finish_reason: null },
      { index: 0, delta: {}, finish_reason: 'tool_calls' },
    ]);
    expect(out.every((o) => o.id === 'msg_3' && o.model === 'claude' && o.created === 5)).toBe(true);
    expect(c.tokens).toEqual({ input: 7, output: 9 });
  });

  it('passes a stream error event on in OpenAI error shape and ignores unparseable data', () => {
    const c = new AnthropicStreamConverter(0, false);
    expect(c.event('ping', 'not json')).toBe('');
    expect(
      chunks(c.event('error', JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }))),
    ).toEqual([{ error: { message: 'busy', type: 'overloaded_error', param: null, code: null } }]);
  });
});
