import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startStandalone, type Standalone } from '../../src/proxy/standalone.js';
import { connectClient, stdioFixture, textOf, waitFor } from './harness.js';
import { freePort } from './ports.js';
import { tempDirs } from '../support/temp-dir.js';

const dir = tempDirs()('gw-reload-');
const file = path.join(dir, 'config.yaml');
let running: Standalone | undefined;
afterAll(async () => {
  await running?.close();
});

function config(port: number, prefixMode: string, targets: string[]): string {
  return `mcp:\n  port: ${port}\n  host: 127.0.0.1\n  prefixMode: ${prefixMode}\n  targets:\n${targets
    .map(
      (t) =>
        `    - name: ${t}\n      stdio: { cmd: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(stdioFixture)}], env: { FIXTURE_ID: ${t} } }\n`,
    )
    .join('')}`;
}

/** Editors replace files by rename; do the same so the watch sees what production sees. */
function replaceFile(text: string): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

describe('reload on file change', () => {
  it('applies valid edits, keeps the last good config on invalid ones, and keeps open sessions', async () => {
    const port = await freePort();
    writeFileSync(file, config(port, 'Conditional', ['first']));
    const lines: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      }),
    );
    running = await startStandalone({
      file,
      log,
      watch: true,
      readyAddress: '127.0.0.1:0',
      metricsAddress: '127.0.0.1:0',
    });
    const url = `http://127.0.0.1:${port}/mcp`;
    const old = await connectClient(url);
    expect(textOf(await old.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('first:a');

    replaceFile(`${config(port, 'Conditional', ['first'])}    - name: broken\n      stdio: {}\n`);
    await waitFor(() => lines.some((l) => l.includes('configuration rejected')), 5000);
    const rejected = JSON.parse(lines.find((l) => l.includes('configuration rejected')) ?? '{}') as {
      path: string;
      msg: string;
    };
    expect(rejected.path).toBe('mcp.targets[1].stdio.cmd');
    expect(rejected.msg).toContain('is required');
    const during = await connectClient(url);
    expect((await during.client.listTools()).tools.map((t) => t.name)).toContain('echo');
    await during.client.close();

    replaceFile(config(port, 'Always', ['second']));
    await waitFor(() => lines.some((l) => l.includes('configuration reloaded')), 5000);
    const fresh = await connectClient(url);
    expect(textOf(await fresh.client.callTool({ name: 'second_echo', arguments: { text: 'b' } }))).toBe('second:b');
    expect(textOf(await old.client.callTool({ name: 'echo', arguments: { text: 'still' } }))).toBe('first:still');
    await fresh.client.close();
    await old.client.close();
    const metrics = await running.runtime.metrics.registry.getSingleMetricAsString('gw_config_reloads_total');
    expect(metrics).toContain('result="rejected"} 1');
    expect(metrics).toContain('result="applied"} 2');
  });
});
