// "Load only what the configuration uses": a proxy whose MCP targets all speak streamable HTTP never
// loads the MCP SDK or zod (mcp/http-target.ts speaks the transport itself); a stdio target loads them.
// Checked in a child process that records every module it resolves (test/fixtures/sdk-loads.ts).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

async function linesOf(cmd: string[], stdinOpen = true): Promise<{ lines: string[]; stop(): void }> {
  const proc = spawn(process.execPath, cmd, { stdio: [stdinOpen ? 'pipe' : 'ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  createInterface({ input: proc.stdout! }).on('line', (l) => lines.push(l));
  return { lines, stop: () => proc.kill() };
}

describe('MCP SDK loading', () => {
  it('is not loaded for streamable-HTTP targets, and is for a stdio target', async () => {
    const upstream = await linesOf(['--import', 'tsx', path.join(here, '../../bench/proxy/cheap-upstream.ts')]);
    try {
      const deadline = Date.now() + 20_000;
      while (!upstream.lines[0] && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(here, '../fixtures/sdk-loads.ts'), String(upstream.lines[0])],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const out: string[] = [];
      createInterface({ input: child.stdout }).on('line', (l) => out.push(l));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
      const [http, stdio] = out.map((l) => JSON.parse(l) as { ok?: boolean; sdk: string[] });
      expect(http?.ok).toBe(true);
      expect(http?.sdk).toEqual([]);
      expect(stdio?.sdk.some((u) => u.includes('/@modelcontextprotocol/sdk/dist/esm/client/'))).toBe(true);
      expect(stdio?.sdk.some((u) => u.includes('/node_modules/zod/'))).toBe(true);
    } finally {
      upstream.stop();
    }
  }, 60_000);
});
