// Table-driven cases for the pure parts: method pattern specificity and header allow/deny lists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { McpGuardrailPhase } from '../../../src/ir/types.js';
import { forwardedHeaders, headerRules } from '../../../src/proxy/mcp/guardrails/headers.js';
import { compileMethodTable, type MessageKind } from '../../../src/proxy/mcp/guardrails/method-match.js';

const data = (file: string): unknown => parse(readFileSync(join(import.meta.dirname, file), 'utf8'));

describe('method patterns', () => {
  const cases = data('method-patterns.yaml') as Array<{
    name: string;
    methods: Record<string, McpGuardrailPhase>;
    kind?: MessageKind;
    expect: Record<string, string>;
  }>;
  for (const c of cases) {
    it(c.name, () => {
      const table = compileMethodTable(c.methods);
      for (const [method, phase] of Object.entries(c.expect))
        expect([method, table.phaseOf(method, c.kind) ?? 'bypass']).toEqual([method, phase]);
    });
  }

  it('rejects a wildcard anywhere but at one end', () => {
    expect(() => compileMethodTable({ 'tools/*/x': 'GUARDRAIL_FULL' })).toThrow(
      'method pattern "tools/*/x" must be an exact method, "prefix*", "*suffix" or "*"',
    );
    expect(() => compileMethodTable({ '*/*': 'GUARDRAIL_FULL' })).toThrow(/must be an exact method/);
  });
});

describe('forwarded headers', () => {
  const cases = data('header-rules.yaml') as Array<{
    name: string;
    allowed: string[];
    disallowed: string[];
    expect: string[];
  }>;
  const request = {
    method: 'POST',
    path: '/mcp',
    headers: { host: 'gw.example', authorization: 'Bearer t', 'x-tenant': 'blue' },
  };
  for (const c of cases) {
    it(c.name, () => {
      expect(Object.keys(forwardedHeaders(request, headerRules(c.allowed, c.disallowed))).sort()).toEqual(c.expect);
    });
  }
});
