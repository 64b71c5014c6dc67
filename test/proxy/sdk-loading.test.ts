// "Load only what the configuration uses": a proxy whose MCP targets all speak streamable HTTP never
// loads the MCP SDK or zod (mcp/http-target.ts speaks the transport itself); a stdio target loads them.
// Checked in a child process that records every module it resolves (test/fixtures/sdk-loads.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

/** A Node child under tsx, its stdout collected line by line; `firstLine` settles with the first one. */
function child(args: string[]): { proc: ChildProcess; lines: string[]; firstLine: Promise<string> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const input = createInterface({ input: proc.stdout! });
  input.on('line', (l) => lines.push(l));
  const firstLine = new Promise<string>((resolve, reject) => {
    input.once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`${args[0]} exited (${code}) before printing a line`)));
  });
  return { proc, lines, firstLine };
}

describe('MCP SDK loading', () => {
  it('is not loaded for streamable-HTTP targets, and is for a stdio target', async () => {
    const upstream = child([path.join(here, '../../bench/proxy/cheap-upstream.ts')]);
    try {
      expect(await upstream.firstLine).toMatch(/^http:/);
      const proxy = child([path.join(here, '../fixtures/sdk-loads.ts'), String(upstream.lines[0])]);
      const code = await new Promise((resolve) => proxy.proc.once('exit', resolve));
      expect(code).toBe(0);
      const out = proxy.lines;
      const [http, stdio] = out.map((l) => JSON.parse(l) as { ok?: boolean; sdk: string[] });
      expect(http?.ok).toBe(true);
      expect(http?.sdk).toEqual([]);
      expect(stdio?.sdk.some((u) => u.includes('/@modelcontextprotocol/sdk/dist/esm/client/'))).toBe(true);
      expect(stdio?.sdk.some((u) => u.includes('/node_modules/zod/'))).toBe(true);
    } finally {
      upstream.proc.kill();
    }
  }, 60_000);
});
