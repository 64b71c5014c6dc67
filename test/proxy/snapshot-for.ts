// A standalone-config MCP block as the proxy's snapshot, on port 0. Its own file, without the MCP SDK,
// so a test that checks what the proxy loads (test/fixtures/sdk-loads.ts) can use it too.
import { configToIr } from '../../src/config/to-ir.js';
import type { ConfigFile } from '../../src/config/schema.js';
import { normalizeSnapshot } from '../../src/ir/load.js';
import type { Snapshot } from '../../src/ir/types.js';

export function snapshotFor(mcp: Omit<ConfigFile['mcp'], 'port'>): Snapshot {
  const ir = configToIr({ mcp: { port: 1, host: '127.0.0.1', ...mcp } }, 'test.yaml');
  const snap = normalizeSnapshot(ir);
  for (const r of snap.resources) if (r.bind) r.bind.port = 0;
  return snap;
}
