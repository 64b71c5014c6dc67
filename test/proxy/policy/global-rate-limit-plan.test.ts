// The proxy's plan of a global rate limit refuses what the policy's status calls invalid: an entry that is a
// whole map never yields text, so serving the route would leave its descriptor out of every call (unlimited).
import { describe, expect, it } from 'vitest';
import { compileGlobalRateLimit } from '../../../src/proxy/policy/global-rate-limit.js';
import type { GlobalRateLimit } from '../../../src/ir/types.js';

const limit = (expression: string): GlobalRateLimit => ({
  url: 'grpc://127.0.0.1:8081',
  tls: null,
  domain: 'gw',
  descriptors: [{ entries: [{ key: 'k', expression }], tokens: false }],
  failOpen: false,
  timeoutMs: 0,
});

describe('global rate-limit plan', () => {
  it('refuses an entry that is a whole map, on forwarded and LLM routes alike', () => {
    for (const expression of ['request.headers', 'jwt', 'llm.model'])
      for (const llm of [false, true])
        expect(compileGlobalRateLimit(limit(expression), llm), expression).toMatch(/yields a map, never a text value/);
  });

  it('plans an entry that names a member', () => {
    const plan = compileGlobalRateLimit(limit('request.headers["x-team"]'), false);
    expect(typeof plan).toBe('object');
  });
});
