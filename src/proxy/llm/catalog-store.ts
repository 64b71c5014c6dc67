// The proxy's model catalog: read from its files at start-up (a bad file stops the start, one line naming
// it), then re-read whenever a file's directory changes (a ConfigMap mount swaps its `..data` symlink). A
// reload with a bad file keeps the catalog in use, logs the problem once and counts it.
import { EventEmitter } from 'node:events';
import { readFileSync, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import { watchFile } from '../watch.js';
import { EMPTY_CATALOG, ModelCatalog, parseCatalog, type CatalogModel } from './model-catalog.js';

export type CatalogReload = 'applied' | 'rejected' | 'unchanged';

export interface CatalogStoreOptions {
  files: readonly string[];
  log: Logger;
  /** Told each reload's result (gw_model_catalog_reloads_total) and the number of models in use. */
  onReload?: (result: CatalogReload, models: number) => void;
  /** Re-read on change (default true). */
  watch?: boolean;
}

/** Emits `reload` (CatalogReload) after each re-read the watch triggered. */
export class ModelCatalogStore extends EventEmitter {
  private catalog: ModelCatalog = EMPTY_CATALOG;
  private texts: string[] = [];
  private readonly watchers: FSWatcher[] = [];
  /** The problems last logged, so a file left broken is not logged again on every unrelated change. */
  private logged = '';

  /** Throws an Error whose message is one line per problem when a file cannot be read or is not a valid catalog. */
  constructor(private readonly opts: CatalogStoreOptions) {
    super();
    const read = this.read();
    if (!read.ok) throw new Error(read.problems.join('\n'));
    this.catalog = read.catalog;
    this.texts = read.texts;
    opts.onReload?.('applied', this.catalog.size);
    if (opts.watch === false) return;
    for (const file of opts.files) {
      const w = watchFile(file, () => this.reload());
      // A directory that cannot be watched any more (removed) leaves the catalog as it is.
      w.on('error', (err) => opts.log.warn({ file, err: err.message }, 'model catalog: stopped watching'));
      this.watchers.push(w);
    }
  }

  /** The catalog in use. */
  current(): ModelCatalog {
    return this.catalog;
  }

  /** Re-reads every file: a valid set replaces the catalog, a bad one is logged (once) and the old one kept. */
  reload(): CatalogReload {
    const read = this.read();
    let result: CatalogReload;
    if (!read.ok) {
      result = 'rejected';
      const text = read.problems.join('\n');
      if (text !== this.logged)
        this.opts.log.error(
          { problems: read.problems, models: this.catalog.size },
          'model catalog not reloaded: keeping the catalog in use',
        );
      this.logged = text;
    } else if (read.texts.every((t, i) => t === this.texts[i])) {
      result = 'unchanged';
      this.logged = '';
    } else {
      this.catalog = read.catalog;
      this.texts = read.texts;
      this.logged = '';
      result = 'applied';
      this.opts.log.info({ models: this.catalog.size, files: this.opts.files }, 'model catalog reloaded');
    }
    this.opts.onReload?.(result, this.catalog.size);
    this.emit('reload', result);
    return result;
  }

  close(): void {
    for (const w of this.watchers.splice(0)) w.close();
  }

  private read(): { ok: true; catalog: ModelCatalog; texts: string[] } | { ok: false; problems: string[] } {
    const problems: string[] = [];
    const sources: CatalogModel[][] = [];
    const texts: string[] = [];
    for (const file of this.opts.files) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        problems.push(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
        continue;
      }
      texts.push(text);
      const parsed = parseCatalog(text, file);
      if (parsed.ok) sources.push(parsed.models);
      else problems.push(...parsed.problems);
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, catalog: new ModelCatalog(sources), texts };
  }
}
