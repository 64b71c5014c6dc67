// The snapshot check refuses structurally broken `ai` backends and AI edges, naming the field.
import { describe, expect, it } from 'vitest';
import { normalizeSnapshot } from '../../../src/ir/load.js';
import { formatProblem } from '../../../src/problem.js';
import { checkSnapshot } from '../../../src/proxy/snapshot-check.js';

describe('snapshot check of AI backends', () => {
  it('names empty groups, duplicate provider names, bad ports, bad settings, empty keys, incomplete cloud credentials and bad model conditions', () => {
    const snapshot = normalizeSnapshot({
      version: '1',
      resources: [
        { bind: { name: 'b', port: 0 } },
        { listener: { name: 'l', bind: 'b' } },
        {
          route: {
            name: 'r',
            listeners: ['l'],
            backends: [
              {
                backend: 'ai',
                weight: 1,
                ai: {
                  providers: {
                    p: { credential: { key: '' } },
                    q: { credential: { aws: { accessKeyId: 'AKID' } } },
                    r: { credential: { azure: { tenantId: 't', clientId: 'c' } } },
                    s: { credential: { gcp: { clientEmail: 'e', tokenUri: 'https://t.example' } } },
                    env: { credential: { aws: {} } },
                  },
                },
              },
            ],
          },
        },
        {
          backend: {
            name: 'ai',
            ai: {
              groups: [
                {
                  providers: [
                    { name: 'p', kind: 'openai', settingsJson: '[1]' },
                    { name: 'p', kind: 'openai', port: 70000 },
                  ],
                },
                { providers: [] },
              ],
            },
          },
        },
        { backend: { name: 'none', ai: { groups: [] } } },
        {
          model: {
            name: 'm',
            parents: ['l'],
            routing: {
              kind: 'CONDITIONAL',
              targets: [
                { model: 'x', when: 'request.headers[' },
                { model: 'y', when: 'tool.name == "a"' },
              ],
            },
          },
        },
      ],
    });
    expect(checkSnapshot(snapshot, 'xds').map(formatProblem)).toEqual([
      'xds: Route r: backends[0].ai.providers[p].credential.key: must not be empty',
      'xds: Route r: backends[0].ai.providers[q].credential.aws.secret_access_key: must not be empty',
      'xds: Route r: backends[0].ai.providers[r].credential.azure.client_secret: must not be empty',
      'xds: Route r: backends[0].ai.providers[s].credential.gcp.private_key: must not be empty',
      'xds: Backend ai: ai.groups[0].providers[1].name: duplicates another provider named p',
      'xds: Backend ai: ai.groups[0].providers[1].port: must be between 1 and 65535, got 70000',
      'xds: Backend ai: ai.groups[1].providers: must not be empty',
      'xds: Backend none: ai.groups: must have at least one priority group',
      expect.stringMatching(/^xds: Model m: routing\.targets\[0\]\.when: is not a valid CEL expression/),
      expect.stringMatching(/^xds: Model m: routing\.targets\[1\]\.when: names unknown variable "tool"/),
    ]);
  });
});
