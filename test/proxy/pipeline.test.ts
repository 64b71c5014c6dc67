// The request pipeline's order is a design decision: docs/architecture.md lists it, and this test keeps
// the code and the document the same list.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stageNames } from '../../src/proxy/pipeline.js';

describe('request pipeline', () => {
  it('runs its stages in the documented order', () => {
    const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## A request'));
    const documented = [...section.matchAll(/^\d+\. \*\*([a-z0-9-]+)\*\*/gm)].map((m) => m[1]);
    expect(stageNames).toEqual(documented);
  });

  it('answers CORS and OAuth discovery before route matching and authentication, and refusals before filters', () => {
    const at = (name: string) => stageNames.indexOf(name);
    expect(at('cors')).toBeLessThan(at('route'));
    expect(at('oauth-endpoints')).toBeLessThan(at('authentication'));
    expect(at('refusals')).toBeLessThan(at('filters'));
    expect(at('authentication')).toBeLessThan(at('authorization'));
    // A processor sees only requests every check let through, and what it returns is what dispatch (retries,
    // prompt guards, rate-limited backends) works on.
    expect(at('traffic')).toBeLessThan(at('external-processing'));
    expect(at('external-authorization')).toBeLessThan(at('external-processing'));
    expect(at('authorization')).toBeLessThan(at('external-processing'));
    expect(at('external-processing')).toBeLessThan(at('dispatch'));
    // Global limits key on the caller (jwt, apiKey), after every check; local ones shield the service before it.
    expect(at('authorization')).toBeLessThan(at('global-rate-limit'));
    expect(at('external-authorization')).toBeLessThan(at('global-rate-limit'));
    expect(at('traffic')).toBeLessThan(at('authentication'));
    expect(at('dispatch')).toBe(stageNames.length - 1);
  });
});
