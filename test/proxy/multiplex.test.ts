import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, exposedName, splitPrefixed, usesPrefix } from '../../src/proxy/mcp/multiplex.js';

describe('multiplexed names and cursors', () => {
  it('prefixes under Conditional only with several targets', () => {
    expect(usesPrefix('CONDITIONAL', 1)).toBe(false);
    expect(usesPrefix('PREFIX_MODE_UNSPECIFIED', 2)).toBe(true);
    expect(usesPrefix('ALWAYS', 1)).toBe(true);
    expect(usesPrefix('NEVER', 5)).toBe(false);
  });

  it('splits a prefixed name on the longest matching target name', () => {
    expect(exposedName('a_b', 'tool', true)).toBe('a_b_tool');
    expect(splitPrefixed('a_b_tool', ['a', 'a_b'])).toEqual({ target: 'a_b', name: 'tool' });
    expect(splitPrefixed('a_tool', ['a', 'a_b'])).toEqual({ target: 'a', name: 'tool' });
    expect(splitPrefixed('c_tool', ['a', 'a_b'])).toBeUndefined();
  });

  it('round-trips cursors and rejects forged ones', () => {
    const c = encodeCursor({ a: '10', b: 'x' });
    expect(c && decodeCursor(c)).toEqual({ a: '10', b: 'x' });
    expect(encodeCursor({})).toBeUndefined();
    expect(decodeCursor('not-base64-json')).toBeUndefined();
    expect(decodeCursor(Buffer.from('{"a":1}').toString('base64url'))).toBeUndefined();
  });
});
