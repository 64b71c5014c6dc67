// The pre-filter that spares passed-through SSE events a JSON.parse: it may say yes too often, never no
// to an event whose top-level `usage` is set (else streamed token counts would be lost).
import { describe, expect, it } from 'vitest';
import { mayCarryUsage } from '../../../src/proxy/llm/llm-response.js';

describe('mayCarryUsage', () => {
  it('skips content chunks without usage and chunks whose usage is null', () => {
    expect(mayCarryUsage('{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}]}')).toBe(false);
    expect(mayCarryUsage('{"id":"c","choices":[{"delta":{"content":"Hi"}}],"usage":null}')).toBe(false);
    expect(mayCarryUsage('{"usage" : null, "choices":[]}')).toBe(false);
  });

  it('keeps every way JSON can spell a usage object', () => {
    expect(mayCarryUsage('{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}')).toBe(true);
    expect(mayCarryUsage('{\n  "choices": [],\n  "usage" :\n {"prompt_tokens": 1}\n}')).toBe(true);
    expect(mayCarryUsage('{"usage":null,"usage":{"prompt_tokens":1}}')).toBe(true);
    expect(mayCarryUsage('{"us\\u0061ge":{"prompt_tokens":1}}')).toBe(true);
    expect(mayCarryUsage('{"usage":nullx}')).toBe(true);
  });
});
