// The user-facing support matrix (docs/support-matrix.md), rendered from the coverage table and the
// schemas so it cannot disagree with them. Regenerate: `npx tsx scripts/support-matrix.ts`.
import { GwBackendSpec, GwModelSpec, GwParametersSpec, GwPolicySpec } from '../src/api/index.js';
import { ConfigFile } from '../src/config/schema.js';
import { coverageTables, type Coverage, type CoveredKind } from '../src/coverage/index.js';
import { schemaLeaves } from '../src/coverage/leaves.js';
import { classify } from '../src/coverage/match.js';

const schemas: Record<CoveredKind, [unknown, string]> = {
  GwPolicy: [GwPolicySpec, 'spec'],
  GwBackend: [GwBackendSpec, 'spec'],
  GwModel: [GwModelSpec, 'spec'],
  GwParameters: [GwParametersSpec, 'spec'],
  standalone: [ConfigFile, ''],
};

/** Every schema leaf of a kind, paths from the object's root (`spec.…`, or `mcp.…` for the file). */
export function leavesOfKind(kind: CoveredKind): string[] {
  const [schema, root] = schemas[kind];
  return schemaLeaves(schema, root).map((p) => p.replace(/^\./, ''));
}

type Status = 'enforced' | 'refused' | 'control plane';
const statusOf = (c: Coverage): Status => ('enforced' in c ? 'enforced' : 'refused' in c ? 'refused' : 'control plane');

function detail(c: Coverage): string {
  if ('enforced' in c)
    return `${c.security ? '**security** (invalid: fails closed): ' : ''}\`${c.enforced}\`${c.note ? ` (${c.note})` : ''}`;
  if ('refused' in c)
    return `${c.security ? '**security** (503 on its routes): ' : ''}${c.refused}${c.values ? ` (only ${c.values.join(', ')})` : ''}`;
  return c.controlPlane;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** Counts of schema leaves per status (a leaf counts under the most specific pattern covering it). */
export function matrixCounts(kind: CoveredKind): Record<Status, number> {
  const table = coverageTables[kind];
  const counts: Record<Status, number> = { enforced: 0, refused: 0, 'control plane': 0 };
  for (const leaf of leavesOfKind(kind)) {
    const hit = classify(table, leaf);
    if (hit) counts[statusOf(hit[1])]++;
  }
  return counts;
}

export function renderMatrix(): string {
  const kinds = Object.keys(coverageTables) as CoveredKind[];
  const lines = [
    '# Support matrix',
    '',
    '<!-- Generated from src/coverage/ by `npx tsx scripts/support-matrix.ts`; do not edit by hand. -->',
    '',
    'Every field the API accepts is one of: **enforced** (the proxy acts on it; the IR field that carries it is named),',
    "**refused** (accepted by the schema, not acted on: the object's status gets `Enforced=False` reason `Unsupported`",
    'naming the field, `gw explain` marks it REFUSED, and a **security** refusal makes the routes it reaches answer',
    '`503 policy_not_enforced`), or **control plane** (read by the controller, deployer or status only).',
    '`[]` stands for any list item; a trailing `.*` covers the whole subtree. Counts are schema leaves.',
    'A **security** field (enforced or refused) that an invalid GwPolicy, GwBackend or GwModel sets keeps that object',
    'attached: what it targets refuses traffic until it is fixed (docs/translate.md, "Invalid objects fail closed").',
    '',
    '| kind | enforced | refused | control plane |',
    '| --- | ---: | ---: | ---: |',
    ...kinds.map((k) => {
      const c = matrixCounts(k);
      return `| ${k} | ${c.enforced} | ${c.refused} | ${c['control plane']} |`;
    }),
  ];
  for (const k of kinds) {
    lines.push(
      '',
      `## ${k === 'standalone' ? 'Standalone config file (`gw proxy -f`)' : k}`,
      '',
      '| field | status | detail |',
      '| --- | --- | --- |',
    );
    for (const [pattern, c] of Object.entries(coverageTables[k]).sort(([a], [b]) => (a < b ? -1 : 1))) {
      lines.push(`| \`${cell(pattern)}\` | ${statusOf(c)} | ${cell(detail(c))} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
