// The limit flags and their environment variables: parsed values, precedence, and errors naming the input.
import { describe, expect, it } from 'vitest';
import { resolveLimits } from '../../src/cli/proxy-limits.js';
import { run } from '../../src/cli/proxy.js';

describe('gw proxy limit flags', () => {
  it('reads counts and durations from flags, else from GW_* variables, and leaves the rest unset', () => {
    expect(
      resolveLimits(
        { 'max-sessions': '500', 'header-timeout': '5s' },
        { GW_MAX_SESSIONS: '9', GW_SESSION_IDLE_TIMEOUT: '10m', GW_REQUEST_TIMEOUT: '0' },
      ),
    ).toEqual({ maxSessions: 500, headersTimeoutMs: 5000, sessionIdleMs: 600_000, requestTimeoutMs: 0 });
  });

  it('names the flag or the variable and the value it refuses', () => {
    expect(() => resolveLimits({ 'keepalive-timeout': '65' }, {})).toThrow(
      '--keepalive-timeout: "65" is not a duration',
    );
    expect(() => resolveLimits({}, { GW_MAX_SESSIONS_PER_CLIENT: '-1' })).toThrow(
      'GW_MAX_SESSIONS_PER_CLIENT: "-1" is not a whole number',
    );
    expect(() => resolveLimits({ 'max-sessions': '0' }, {})).toThrow('--max-sessions: must be above 0');
  });

  it('exits 2 on a bad limit before reading the configuration file', async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (m: string) => {
      errors.push(m);
    };
    try {
      expect(await run(['-f', '/nonexistent.yaml', '--header-timeout', 'soon'])).toBe(2);
    } finally {
      console.error = original;
    }
    expect(errors.join('\n')).toContain('--header-timeout: "soon"');
  });
});
