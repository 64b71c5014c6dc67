// AI field transformations that would not compile on the proxy (a parse error, or a variable it does not
// bind for them) make the object invalid, naming the expression's path (src/translate/objects/validate-gw.ts).
import { describe, expect, it } from 'vitest';
import { gwProblems } from '../../src/translate/objects/validate-gw.js';

const problems = (kind: 'GwPolicy' | 'GwBackend' | 'GwModel', spec: unknown): string[] => {
  const out: string[] = [];
  gwProblems(kind, spec, (path, message) => out.push(`${path}: ${message}`));
  return out;
};

describe('AI field transformation expressions', () => {
  it('refuses a GwPolicy finalTransformation naming a variable the proxy does not bind there', () => {
    const spec = {
      targetRefs: [{ group: 'gw.dev', kind: 'GwBackend', name: 'llm' }],
      backend: { ai: { finalTransformations: [{ field: 'user', expression: 'mcp.tool' }] } },
    };
    expect(problems('GwPolicy', spec)).toEqual([
      expect.stringMatching(/^spec\.backend\.ai\.finalTransformations\[0\]\.expression: names unknown variable "mcp"/),
    ]);
  });

  it("refuses a provider's own transformation that does not parse, and a GwModel's", () => {
    const backend = {
      ai: {
        groups: [
          {
            providers: [
              { name: 'a', openai: {}, policies: { ai: { transformations: [{ field: 'x', expression: 'size(' }] } } },
            ],
          },
        ],
      },
    };
    expect(problems('GwBackend', backend)).toEqual([
      expect.stringMatching(
        /^spec\.ai\.groups\[0\]\.providers\[0\]\.policies\.ai\.transformations\[0\]\.expression: is not a valid CEL/,
      ),
    ]);
    const model = {
      parentRefs: [{ name: 'r' }],
      provider: 'OpenAI',
      policies: { transformations: [{ field: 'x', expression: 'response.code' }] },
    };
    expect(problems('GwModel', model)).toEqual([
      expect.stringMatching(/^spec\.policies\.transformations\[0\]\.expression: names unknown variable "response"/),
    ]);
  });

  it('accepts expressions over llmRequest, request, jwt and apiKey', () => {
    const spec = {
      targetRefs: [{ group: 'gw.dev', kind: 'GwBackend', name: 'llm' }],
      backend: {
        ai: {
          transformations: [
            { field: 'user', expression: "jwt.sub + apiKey.name + request.headers['x'] + llmRequest.model" },
          ],
        },
      },
    };
    expect(problems('GwPolicy', spec)).toEqual([]);
  });
});
