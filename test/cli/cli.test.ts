import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.js';
import { fieldPath, formatProblem } from '../../src/problem.js';

afterEach(() => vi.restoreAllMocks());

describe('gw CLI', () => {
  it('exits 2 and names the command when the command is unknown', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await main(['no-such-command'])).toBe(2);
    expect(err.mock.calls.flat().join('\n')).toContain('unknown command "no-such-command"');
  });

  it('answers --help with exit 0 and lists subcommands', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(await main(['--help'])).toBe(0);
    expect(log.mock.calls.flat().join('\n')).toMatch(/Commands:[\s\S]*version/);
  });
});

describe('problem formatting', () => {
  it('joins source, object, path and message as one line', () => {
    const line = formatProblem({
      source: 'a.yaml',
      object: 'GwBackend default/b',
      path: fieldPath(['spec', 'mcp', 'targets', 3, 'static', 'port']),
      message: 'must be between 1 and 65535, got 0',
    });
    expect(line).toBe(
      'a.yaml: GwBackend default/b: spec.mcp.targets[3].static.port: must be between 1 and 65535, got 0',
    );
  });
});
