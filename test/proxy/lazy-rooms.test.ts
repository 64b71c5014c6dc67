// Issue 42: a proxy loads what its snapshot uses. An LLM-only snapshot, applied and served, never imports
// the MCP endpoint, the Istio CA client (node-forge), the YAML parser or jose's index; a snapshot with an
// MCP backend has the endpoint loaded by the time apply resolves, before any request.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configToIr } from '../../src/config/to-ir.js';
import { normalizeSnapshot } from '../../src/ir/load.js';
import { tempDirs } from '../support/temp-dir.js';
import { GATEWAY_WEB, gwBackendRef, httpRoute, translatedIr } from './translated-ir.js';

const dir = tempDirs()('gw-lazy-rooms-');

/** Every module URL the child loaded applying `snapshot` (and calling `call`, when given). */
function modulesLoaded(name: string, snapshot: object, call?: string): { urls: string; out: string } {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(snapshot));
  const modules = path.join(dir, `${name}-modules`);
  mkdirSync(modules);
  const args = ['--import', './test/support/record-modules.mjs', '--import', 'tsx'];
  const child = spawnSync(
    process.execPath,
    [...args, 'test/proxy/lazy-rooms-child.ts', file, ...(call ? [call] : [])],
    {
      env: { ...process.env, GW_RECORD_MODULES: modules },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  if (child.status !== 0) throw new Error(`the child exited ${child.status}: ${child.stderr}`);
  const urls = readdirSync(modules)
    .map((f) => readFileSync(path.join(modules, f), 'utf8'))
    .join('');
  return { urls, out: child.stdout.trim() };
}

describe('rooms a snapshot does not use stay unloaded', () => {
  it('serves an LLM-only snapshot without importing the MCP endpoint, node-forge, yaml or all of jose', () => {
    const llm = `---\napiVersion: gw.dev/v1alpha1\nkind: GwBackend\nmetadata: {name: llm, namespace: default}\nspec:\n  ai: {provider: {openai: {}, host: 127.0.0.1, port: 9}}\n`;
    const ir = translatedIr(`${GATEWAY_WEB}${llm}${httpRoute('plain', { backendRefs: gwBackendRef('llm') })}`);
    const { urls, out } = modulesLoaded('llm', ir, '/plain/v1/chat/completions');
    // The call went through the LLM stage (port 9 answers nothing: a gateway error, not a 404).
    expect(Number(out)).toBeGreaterThanOrEqual(500);
    expect(urls).toContain('/src/proxy/llm/llm-forwarder.ts');
    expect(urls).not.toContain('/src/proxy/mcp/endpoint.ts');
    expect(urls).not.toContain('/src/proxy/identity/istio-ca.ts');
    expect(urls).not.toContain('/node_modules/node-forge/');
    expect(urls).not.toContain('/node_modules/yaml/');
    expect(urls).not.toMatch(/node_modules\/jose\/dist\/webapi\/index\.js/);
  });

  it('loads the MCP endpoint while applying a snapshot with an MCP backend, before any request', () => {
    const ir = normalizeSnapshot(
      configToIr(
        {
          mcp: {
            port: 1,
            host: '127.0.0.1',
            targets: [{ name: 't', streamableHttp: { url: 'http://127.0.0.1:9/mcp' } }],
          },
        },
        'lazy',
      ),
    );
    for (const r of ir.resources) if (r.bind) r.bind.port = 0;
    expect(modulesLoaded('mcp', ir).urls).toContain('/src/proxy/mcp/endpoint.ts');
  });
});
