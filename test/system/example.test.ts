// The `make run` example: valid to `gw validate`, and the controller's snapshot of it, as the xDS
// stream carries it, is applied by the proxy without a single rejected resource.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { run as validate } from '../../src/cli/validate.js';
import { LocalController } from '../../src/controller/local/local-controller.js';
import { createControllerSource } from '../../src/controller/snapshot-source.js';
import { planUpdate } from '../../src/proxy/xds-resources.js';
import { log } from './harness.js';

const dir = 'examples/local-mcp';

describe('the make run example (examples/local-mcp)', () => {
  it('passes gw validate', async () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join(dir, f));
      expect(await validate(files)).toBe(0);
    } finally {
      out.mockRestore();
    }
  });

  it('translates into one gateway snapshot the proxy applies whole: bind, listener, MCP route, MCP backend', () => {
    const controller = new LocalController({
      manifests: dir,
      translate: { controllerName: 'gw.dev/gateway-controller' },
      logger: log,
    });
    const summary = controller.reload();
    expect(summary.problems).toEqual([]);
    const source = createControllerSource();
    for (const [gw, snap] of controller.snapshots) source.publish(gw, snap);
    const resources = source.get('default/local');
    expect(resources).toBeDefined();
    const upserts = [...(resources ?? new Map())].map(([name, r]) => ({ name, type: r.type, body: r.body }));
    const plan = planUpdate(new Map(), { upserts, removes: [] }, 'example');
    expect(plan.errors).toEqual([]);
    expect([...plan.next.keys()].sort()).toEqual([
      'backend/GwBackend/default/everything',
      'bind/default/local/3000',
      'listener/default/local/http',
      'route/HTTPRoute/default/mcp/0',
    ]);
    const backend = [...plan.next.values()].find((r) => r.backend)?.backend;
    expect(backend?.mcp?.targets[0]?.remote?.url).toBe('http://127.0.0.1:3001/mcp');
  });
});
