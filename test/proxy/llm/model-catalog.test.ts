// Model catalog files (docs/llm-providers.md "Model catalog"): parsing and checking (every problem names the file and
// the entry), merging sources, and the store's reload when a ConfigMap mount swaps its `..data` symlink:
// a good file replaces the catalog, a bad one is logged once and the catalog in use is kept.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelCatalog, celModel, parseCatalog } from '../../../src/proxy/llm/model-catalog.js';
import { ModelCatalogStore } from '../../../src/proxy/llm/catalog-store.js';
import { configMapVolume, type ConfigMapVolume } from '../../support/configmap-volume.js';

const data = join(import.meta.dirname, 'testdata', 'catalog');
const read = (f: string) => readFileSync(join(data, f), 'utf8');

describe('model catalog files', () => {
  it('reads a YAML catalog with every field', () => {
    const parsed = parseCatalog(read('valid.yaml'), 'valid.yaml');
    expect(parsed.ok && parsed.models[0]).toEqual({
      name: 'gpt-4o',
      provider: 'OpenAI',
      contextWindow: 128000,
      inputCostPerMillion: 2.5,
      outputCostPerMillion: 10,
      capabilities: ['chat', 'tools', 'vision'],
    });
  });

  it('names the file and every bad entry with its field', () => {
    const parsed = parseCatalog(read('bad.json'), 'bad.json');
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.problems).toEqual(read('bad.problems.txt').trim().split('\n'));
  });

  it('refuses a file that is not a catalog, naming it', () => {
    expect(parseCatalog('[1, 2]', 'x.json')).toEqual({
      ok: false,
      problems: ['x.json: must be an object with a models list'],
    });
    expect(parseCatalog('{"models": [], "extra": 1}', 'x.json')).toEqual({
      ok: false,
      problems: ['x.json: extra: is not a known field'],
    });
    const broken = parseCatalog('{"models": [', 'x.json');
    expect(!broken.ok && broken.problems[0]).toMatch(/^x\.json: is neither JSON nor YAML: /);
  });

  it('looks a model up by provider kind, else by name; a later source replaces the same provider and name', () => {
    const first = parseCatalog(read('valid.yaml'), 'valid.yaml');
    if (!first.ok) throw new Error('valid.yaml must parse');
    const catalog = new ModelCatalog([
      first.models,
      [{ name: 'gpt-4o', provider: 'openai', inputCostPerMillion: 2, capabilities: [] }],
    ]);
    expect(catalog.lookup('gpt-4o', 'azureopenai')?.inputCostPerMillion).toBe(2.75);
    expect(catalog.lookup('gpt-4o', 'openai')?.inputCostPerMillion).toBe(2);
    expect(catalog.lookup('claude-sonnet-4', 'bedrock')?.provider).toBe('Anthropic');
    expect(catalog.lookup('unknown')).toBeUndefined();
    expect(catalog.servedBy('anthropic').map((m) => m.name)).toEqual(['claude-sonnet-4']);
    expect(celModel(catalog.lookup('claude-sonnet-4'))).toMatchObject({
      contextWindow: 200000n,
      outputCostPerMillion: 15,
    });
  });
});

describe('model catalog store', () => {
  const volumes: ConfigMapVolume[] = [];
  const stores: ModelCatalogStore[] = [];
  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
    for (const v of volumes.splice(0)) v.remove();
  });
  const configMapDir = (key: string, text: string): ConfigMapVolume => {
    const v = configMapVolume(key, text);
    volumes.push(v);
    return v;
  };

  function logSink(): { log: Logger; lines: string[] } {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    return { log: pino({ level: 'info' }, sink), lines };
  }

  const one = (name: string, price: number) =>
    JSON.stringify({ models: [{ name, provider: 'OpenAI', inputCostPerMillion: price }] });

  it('reloads when the ..data symlink is swapped, and keeps the catalog in use when the new file is bad', async () => {
    const mount = configMapDir('catalog.json', one('gpt-4o', 2.5));
    const { log, lines } = logSink();
    const results: string[] = [];
    const store = new ModelCatalogStore({ files: [mount.file], log, onReload: (r) => results.push(r) });
    stores.push(store);
    expect(store.current().lookup('gpt-4o')?.inputCostPerMillion).toBe(2.5);

    let reloaded = once(store, 'reload');
    mount.swap(one('gpt-4o', 3));
    expect(await reloaded).toEqual(['applied']);
    expect(store.current().lookup('gpt-4o')?.inputCostPerMillion).toBe(3);

    reloaded = once(store, 'reload');
    mount.swap(JSON.stringify({ models: [{ name: 'gpt-4o', provider: 'OpenAI', inputCostPerMillion: 'cheap' }] }));
    expect(await reloaded).toEqual(['rejected']);
    expect(store.current().lookup('gpt-4o')?.inputCostPerMillion).toBe(3);
    const errors = lines.filter((l) => l.includes('model catalog not reloaded'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`${mount.file}: models[0] (gpt-4o).inputCostPerMillion: must be a number`);

    // The same bad file read again is counted, not logged again.
    expect(store.reload()).toBe('rejected');
    expect(lines.filter((l) => l.includes('model catalog not reloaded'))).toHaveLength(1);
    expect(results).toEqual(['applied', 'applied', 'rejected', 'rejected']);
  });

  it('refuses to start with a file that is missing or bad, naming it', () => {
    const { log } = logSink();
    expect(() => new ModelCatalogStore({ files: ['/no/such/catalog.json'], log, watch: false })).toThrow(
      '/no/such/catalog.json: cannot be read (ENOENT)',
    );
    const mount = configMapDir('catalog.json', '{"models": [{"name": "x"}]}');
    expect(() => new ModelCatalogStore({ files: [mount.file], log, watch: false })).toThrow(
      `${mount.file}: models[0] (x).provider: must be a non-empty string`,
    );
  });
});
