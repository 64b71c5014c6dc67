// Key URL, discovery and endpoint derivation per provider (pure), and settings errors that name the field.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { planProvider } from '../../../src/proxy/auth/provider.js';
import { createMcpAuth, type McpAuthSettings } from '../../../src/proxy/auth/index.js';

interface Case {
  name: string;
  settings: Partial<McpAuthSettings>;
  plan?: unknown;
  error?: string;
}
const cases = JSON.parse(readFileSync(new URL('./testdata/provider-plans.json', import.meta.url), 'utf8')) as Case[];
const full = (s: Partial<McpAuthSettings>): McpAuthSettings => ({ mode: 'strict', issuer: '', mcpPath: '/mcp', ...s });

describe('provider plans', () => {
  for (const c of cases) {
    it(c.error ? `rejects ${c.name}` : `derives: ${c.name}`, () => {
      if (c.error) expect(() => planProvider(full(c.settings))).toThrow(c.error);
      else expect(planProvider(full(c.settings))).toEqual(c.plan);
    });
  }
});

describe('createMcpAuth settings errors', () => {
  const log = pino({ level: 'silent' });

  it('names the source and field for an inline key set that is not a JWKS', () => {
    expect(() =>
      createMcpAuth(full({ issuer: 'https://a.example', jwksInline: '{"nokeys":true}' }), { log, source: 'gw.yaml' }),
    ).toThrow(
      'gw.yaml: mcp.policies.mcpAuthentication.jwksInline: is not a JSON Web Key Set: it must be an object with a "keys" list',
    );
  });

  it('rejects an MCP path without a leading slash', () => {
    expect(() => createMcpAuth(full({ issuer: 'https://a.example', mcpPath: 'mcp' }), { log })).toThrow(
      'config: mcp.policies.mcpAuthentication.mcpPath: must start with "/", got "mcp"',
    );
  });

  it('rejects a resource that is not an absolute URL', () => {
    expect(() =>
      createMcpAuth(full({ issuer: 'https://a.example', resourceMetadata: { resource: '/mcp' } }), { log }),
    ).toThrow('mcp.policies.mcpAuthentication.resourceMetadata.resource: must be an absolute URL, got "/mcp"');
  });
});
