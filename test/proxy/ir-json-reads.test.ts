// Policy reaches the proxy typed (issue 14): the IR's JSON-text fields are provenance for `gw explain`, and no
// proxy code may read them, or a field could again be "accepted" and read by nobody. The forbidden names
// come from the proto itself: the JSON map of PolicyFields and every `string …_json` field, except the few
// that carry a user's JSON value (not policy) to the proxy on purpose.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/module-graph.js';

const root = path.resolve(import.meta.dirname, '../..');
const protoDir = path.join(root, 'proto/gw/ir/v1');
/**
 * JSON values the proxy must read: a field value to set (AiFieldValue), API-key metadata for CEL, extra metadata
 * members, the static claims a signed JWT carries (JwtSign: the user's claim values, not policy).
 */
const VALUE_FIELDS = new Set(['value_json', 'metadata_json', 'extra_json', 'claims_json']);

const camel = (s: string): string => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

function forbiddenNames(): string[] {
  const names = new Set<string>();
  for (const f of readdirSync(protoDir).filter((n) => n.endsWith('.proto'))) {
    const text = readFileSync(path.join(protoDir, f), 'utf8').replace(/\/\/.*$/gm, '');
    for (const m of text.matchAll(/\bstring\s+(\w+_json)\s*=/g)) if (!VALUE_FIELDS.has(m[1]!)) names.add(camel(m[1]!));
    const policyFields = /message PolicyFields\s*\{([^}]*)\}/.exec(text)?.[1];
    for (const m of policyFields?.matchAll(/map<string,\s*string>\s+(\w+)\s*=/g) ?? []) names.add(camel(m[1]!));
  }
  return [...names].sort();
}

describe('the proxy reads no JSON-text policy from the IR', () => {
  it('derives the forbidden fields from the proto', () => {
    expect(forbiddenNames()).toEqual(['fields', 'policiesJson', 'settingsJson']);
  });

  it('has no proxy file that reads one of them', () => {
    const names = forbiddenNames();
    // `x.fields`, `x?.fields`, `x['fields']`; not a spread (`...fields`).
    const reads = new RegExp(`(?<=[\\w)\\]?])\\.(${names.join('|')})\\b|\\[['"](${names.join('|')})['"]\\]`);
    const offenders = sourceFiles(path.join(root, 'src/proxy')).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line: line.replace(/\/\/.*$/, ''), at: `${path.relative(root, file)}:${i + 1}` }))
        .filter(({ line }) => reads.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
