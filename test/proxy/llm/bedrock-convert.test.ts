// OpenAI chat ⇄ Bedrock Converse conversions that the wire tests (llm-bedrock.test.ts) do not reach.
import { describe, expect, it } from 'vitest';
import { fromConverseError, fromConverseResponse, toConverseRequest } from '../../../src/proxy/llm/bedrock.js';

const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }];

describe('Bedrock Converse conversion', () => {
  it('keeps data-URL images as bytes and drops images Bedrock cannot fetch', () => {
    const req = toConverseRequest({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            { type: 'image_url', image_url: { url: 'https://x.example/a.png' } },
          ],
        },
      ],
    });
    expect(req.messages).toEqual([
      { role: 'user', content: [{ text: 'Look' }, { image: { format: 'png', source: { bytes: 'AAAA' } } }] },
    ]);
  });

  it('maps tool_choice required and a named function, and leaves the tools out for none', () => {
    expect(toConverseRequest({ messages: [], tools, tool_choice: 'required' }).toolConfig).toMatchObject({
      toolChoice: { any: {} },
    });
    expect(
      toConverseRequest({ messages: [], tools, tool_choice: { type: 'function', function: { name: 'f' } } }).toolConfig,
    ).toMatchObject({ toolChoice: { tool: { name: 'f' } } });
    expect(toConverseRequest({ messages: [], tools, tool_choice: 'none' }).toolConfig).toBeUndefined();
  });

  it('maps stop reasons to finish reasons', () => {
    const finish = (stopReason: string) =>
      (
        fromConverseResponse({ stopReason, output: { message: { content: [] } } }, 'id', 'm', 1).choices as {
          finish_reason: string;
        }[]
      )[0]?.finish_reason;
    expect([
      finish('end_turn'),
      finish('stop_sequence'),
      finish('max_tokens'),
      finish('tool_use'),
      finish('guardrail_intervened'),
      finish('content_filtered'),
    ]).toEqual(['stop', 'stop', 'length', 'tool_calls', 'content_filter', 'content_filter']);
  });

  it('names the error type from the header, else from __type, and leaves other bodies alone', () => {
    expect(fromConverseError({ message: 'no' }, 'ThrottlingException:http://x')).toMatchObject({
      error: { message: 'no', type: 'ThrottlingException' },
    });
    expect(fromConverseError({ Message: 'no', __type: 'com.amazon#AccessDeniedException' })).toMatchObject({
      error: { type: 'AccessDeniedException' },
    });
    expect(fromConverseError({ other: 1 })).toEqual({ other: 1 });
  });
});
