import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile, parseConfig } from '../../src/config/load.js';
import { ProblemError, formatProblem } from '../../src/problem.js';

const dir = 'test/config/testdata';
const env = { PORT: '3000', CLIENT_SECRET: 'shh', API_TOKEN: 'tok' };
const refresh = process.env.REFRESH_GOLDEN === '1';

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

async function problemsOf(file: string): Promise<string> {
  try {
    await loadConfigFile(file, env);
  } catch (err) {
    if (err instanceof ProblemError) return `${err.problems.map(formatProblem).join('\n')}\n`;
    throw err;
  }
  throw new Error(`${file} loaded without problems`);
}

describe('standalone config loader', () => {
  for (const name of readdirSync(path.join(dir, 'valid')).filter((f) => f.endsWith('.yaml'))) {
    it(`translates ${name} into the expected IR snapshot`, async () => {
      const { snapshot } = await loadConfigFile(path.join(dir, 'valid', name), env);
      const text = `${JSON.stringify(sorted(snapshot), null, 2)}\n`;
      const golden = path.join(dir, 'valid', name.replace(/\.yaml$/, '.ir.json'));
      if (refresh) writeFileSync(golden, text);
      expect(text).toBe(readFileSync(golden, 'utf8'));
    });
  }

  for (const name of readdirSync(path.join(dir, 'invalid')).filter((f) => f.endsWith('.yaml'))) {
    it(`rejects ${name} naming the field path`, async () => {
      const got = await problemsOf(path.join(dir, 'invalid', name));
      const expected = path.join(dir, 'invalid', name.replace(/\.yaml$/, '.err'));
      if (refresh) writeFileSync(expected, got);
      expect(got).toBe(readFileSync(expected, 'utf8'));
    });
  }

  it('maps authorization rules to ALLOW rules and keeps extra resource metadata as JSON', async () => {
    const { snapshot } = await loadConfigFile(path.join(dir, 'valid/seed-idpf.yaml'), env);
    const route = snapshot.resources.find((r) => r.route)?.route;
    expect(route?.policy?.authorization?.rules).toEqual([{ expressions: ['"admin" in jwt.roles'], action: 'ALLOW' }]);
    expect(route?.policy?.mcpAuthentication?.provider).toBe('IDPF');
    expect(JSON.parse(route?.policy?.mcpAuthentication?.resourceMetadata?.extraJson ?? '{}')).toEqual({
      resource_documentation: 'https://docs.example/mcp',
    });
  });

  it('expands ${NAME} inside longer strings and leaves $${NAME} literal', () => {
    const config = parseConfig(
      'mcp:\n  port: 1\n  targets:\n    - name: a\n      stdio: { cmd: "${BIN}/node", args: ["$${HOME}", "x${N}y"] }\n',
      'f.yaml',
      { BIN: '/usr/bin', N: '1' },
    );
    expect(config.mcp.targets[0]?.stdio).toEqual({ cmd: '/usr/bin/node', args: ['${HOME}', 'x1y'] });
  });

  it('does not expand references inside comments', () => {
    expect(() =>
      parseConfig(
        '# uses ${UNSET_IN_COMMENT}\nmcp:\n  port: 1\n  targets: [{ name: a, stdio: { cmd: node } }]\n',
        'f.yaml',
        {},
      ),
    ).not.toThrow();
  });

  it('reports every problem of a file in one pass: an unset variable, an unknown field and a duplicate name', () => {
    const text = [
      'mcp:',
      '  port: 1',
      '  colour: blue',
      '  targets:',
      '    - { name: a, stdio: { cmd: node, env: { T: "${UNSET_FOR_TEST}" } } }',
      '    - { name: a, stdio: { cmd: node } }',
    ].join('\n');
    let problems: string[] = [];
    try {
      parseConfig(text, 'f.yaml', {});
    } catch (err) {
      problems = (err as ProblemError).problems.map(formatProblem);
    }
    expect(problems).toEqual([
      'f.yaml: mcp.targets[0].stdio.env.T: environment variable not found: UNSET_FOR_TEST',
      'f.yaml: mcp.colour: is not a known field',
      'f.yaml: mcp.targets[1].name: duplicates the name of mcp.targets[0]: a',
    ]);
  });

  it('accepts the make run example', async () => {
    const { snapshot } = await loadConfigFile('examples/standalone-mcp/config.yaml', { GW_EXAMPLE_PORT: '3000' });
    expect(snapshot.resources.find((r) => r.bind)?.bind?.port).toBe(3000);
  });

  it('gives the same snapshot version for the same content', async () => {
    const a = await loadConfigFile(path.join(dir, 'valid/multi-target.yaml'), env);
    const b = await loadConfigFile(path.join(dir, 'valid/multi-target.yaml'), env);
    expect(a.snapshot.version).toMatch(/^[0-9a-f]{16}$/);
    expect(a.snapshot.version).toBe(b.snapshot.version);
  });
});
