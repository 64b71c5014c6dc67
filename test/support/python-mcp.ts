// The MCP Python SDK (PyPI `mcp` 2.3) as a client and a server for the interop tests: the venv comes from
// scripts/python-mcp.sh (made once under .cache, reused), the programs from test/fixtures/python.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startUrlServer, type UrlServer } from '../fixtures/url-server.js';

const run = promisify(execFile);
const repo = join(import.meta.dirname, '../..');
const programs = join(repo, 'test/fixtures/python');

/** The venv's python, installing the SDK the first time (about a minute; later calls return at once). */
export async function pythonMcp(): Promise<string> {
  return (await run('bash', [join(repo, 'scripts/python-mcp.sh')], { timeout: 300_000 })).stdout.trim();
}

/** A Python SDK server (tool `echo`, prompt `greet`) whose echo answers `<name>:<text>`. */
export function startPythonServer(python: string, name: string): Promise<UrlServer> {
  return startUrlServer(python, [join(programs, 'mcp_server.py'), name]);
}

/** `auto` is the SDK's default connect mode (server/discover, falling back to initialize); a date pins a revision. */
export interface PythonStep {
  mode: 'auto' | 'legacy' | '2026-07-28';
  tool: string;
  args?: Record<string, unknown>;
}

export type PythonOutcome =
  { protocolVersion: string; tools: string[]; isError: boolean; text: string } | { error: string };

/** Runs the steps with the Python SDK's client, one fresh connection each, in one Python process. */
export async function runPythonClient(python: string, url: string, steps: PythonStep[]): Promise<PythonOutcome[]> {
  const { stdout } = await run(python, [join(programs, 'mcp_client.py'), url, JSON.stringify(steps)], {
    timeout: 25_000 * steps.length + 30_000,
  });
  return JSON.parse(stdout) as PythonOutcome[];
}
