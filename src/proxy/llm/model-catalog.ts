// Model catalogs (GwParameters `modelCatalog`, `gw proxy --model-catalog`): what is known about each model
// a provider serves (context window, prices, capabilities). Parsed and checked here (pure); read, watched
// and swapped by catalog-store.ts. Format and uses: docs/llm-providers.md "Model catalog".
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

// The YAML parser (yaml: ~280 KiB of source) loads with the first catalog file, not with every proxy.
const requireLazily = createRequire(import.meta.url);
const parseYaml = (text: string): unknown => (requireLazily('yaml') as typeof Yaml).parse(text);

/** One catalog entry as the proxy uses it; prices in US dollars per million tokens. */
export interface CatalogModel {
  name: string;
  /** As written in the file (`OpenAI`); matched against provider kinds without regard to case. */
  provider: string;
  contextWindow?: number;
  inputCostPerMillion?: number;
  outputCostPerMillion?: number;
  capabilities: string[];
}

export type CatalogParse = { ok: true; models: CatalogModel[] } | { ok: false; problems: string[] };

const FIELDS = new Set([
  'name',
  'provider',
  'contextWindow',
  'inputCostPerMillion',
  'outputCostPerMillion',
  'capabilities',
]);
/** A catalog is a file an operator writes; past this many entries it is more likely a mistake than a catalog. */
export const MAX_CATALOG_MODELS = 10_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The entries of one catalog file (YAML or JSON: YAML 1.2 reads both), or every problem found, each
 * naming the file and the entry (`catalog.json: models[2] (gpt-4o).contextWindow: must be ...`).
 */
export function parseCatalog(text: string, file: string): CatalogParse {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    return { ok: false, problems: [`${file}: is neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`] };
  }
  if (!isObject(doc) || !Array.isArray(doc.models))
    return { ok: false, problems: [`${file}: must be an object with a models list`] };
  const extra = Object.keys(doc).filter((k) => k !== 'models');
  if (extra.length > 0) return { ok: false, problems: [`${file}: ${extra[0]}: is not a known field`] };
  if (doc.models.length > MAX_CATALOG_MODELS)
    return { ok: false, problems: [`${file}: models: must have at most ${MAX_CATALOG_MODELS} entries`] };
  const problems: string[] = [];
  const models: CatalogModel[] = [];
  const seen = new Set<string>();
  doc.models.forEach((raw: unknown, i) => {
    const entry = checkEntry(raw);
    const name = isObject(raw) && typeof raw.name === 'string' ? ` (${raw.name})` : '';
    const at = `${file}: models[${i}]${name}`;
    if ('problem' in entry) return void problems.push(`${at}${entry.problem}`);
    const key = keyOf(entry.provider, entry.name);
    if (seen.has(key)) return void problems.push(`${at}: duplicates another entry of provider ${entry.provider}`);
    seen.add(key);
    models.push(entry);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, models };
}

/** One entry, or its first problem as `.field: sentence` (or `: sentence` for the entry itself). */
function checkEntry(raw: unknown): CatalogModel | { problem: string } {
  if (!isObject(raw)) return { problem: ': must be an object' };
  const unknown = Object.keys(raw).find((k) => !FIELDS.has(k));
  if (unknown) return { problem: `.${unknown}: is not a known field` };
  for (const f of ['name', 'provider'] as const) {
    const v = raw[f];
    if (typeof v !== 'string' || v.trim() === '' || v.length > 256)
      return { problem: `.${f}: must be a non-empty string of at most 256 characters` };
  }
  if (raw.contextWindow !== undefined && !(Number.isSafeInteger(raw.contextWindow) && Number(raw.contextWindow) > 0))
    return { problem: `.contextWindow: must be a positive integer, got ${JSON.stringify(raw.contextWindow)}` };
  for (const f of ['inputCostPerMillion', 'outputCostPerMillion'] as const) {
    const v = raw[f];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0))
      return { problem: `.${f}: must be a number of US dollars, zero or more, got ${JSON.stringify(v)}` };
  }
  const caps = raw.capabilities ?? [];
  if (!Array.isArray(caps) || caps.some((c) => typeof c !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(c)))
    return { problem: '.capabilities: must be a list of names (letters, digits, _ . -)' };
  return {
    name: raw.name as string,
    provider: raw.provider as string,
    ...(raw.contextWindow !== undefined ? { contextWindow: raw.contextWindow as number } : {}),
    ...(raw.inputCostPerMillion !== undefined ? { inputCostPerMillion: raw.inputCostPerMillion as number } : {}),
    ...(raw.outputCostPerMillion !== undefined ? { outputCostPerMillion: raw.outputCostPerMillion as number } : {}),
    capabilities: caps as string[],
  };
}

const keyOf = (provider: string, name: string): string => `${provider.toLowerCase()}\n${name}`;

/** The entries of every source merged, read-only: a later source's entry replaces an earlier one of the same provider and name. */
export class ModelCatalog {
  private readonly byKey = new Map<string, CatalogModel>();
  private readonly byName = new Map<string, CatalogModel>();
  readonly models: readonly CatalogModel[];

  constructor(sources: readonly (readonly CatalogModel[])[]) {
    for (const list of sources) for (const m of list) this.byKey.set(keyOf(m.provider, m.name), m);
    this.models = [...this.byKey.values()];
    // By name alone, the first source's entry wins (a name served by several providers: the earliest listed).
    for (const m of this.models) if (!this.byName.has(m.name)) this.byName.set(m.name, m);
  }

  get size(): number {
    return this.models.length;
  }

  /** The entry of `model` served by a provider of `kind` (`openai`), else the entry of that name from any provider. */
  lookup(model: string, kind?: string): CatalogModel | undefined {
    return (kind !== undefined ? this.byKey.get(keyOf(kind, model)) : undefined) ?? this.byName.get(model);
  }

  /** Entries a provider of `kind` serves (a provider with a fixed `model` serves that one only). */
  servedBy(kind: string, fixedModel?: string): CatalogModel[] {
    const k = kind.toLowerCase();
    return this.models.filter((m) => m.provider.toLowerCase() === k && (!fixedModel || m.name === fixedModel));
  }
}

export const EMPTY_CATALOG = new ModelCatalog([]);

/** CEL `llm.model`: the catalog's metadata of the model a request goes to (empty when the catalog has none). */
export function celModel(m: CatalogModel | undefined): Record<string, unknown> {
  if (!m) return {};
  return {
    name: m.name,
    provider: m.provider,
    capabilities: m.capabilities,
    // A CEL int (a JS number would be a double), so `llm.model.contextWindow > 100000` reads as written.
    ...(m.contextWindow !== undefined ? { contextWindow: BigInt(m.contextWindow) } : {}),
    ...(m.inputCostPerMillion !== undefined ? { inputCostPerMillion: m.inputCostPerMillion } : {}),
    ...(m.outputCostPerMillion !== undefined ? { outputCostPerMillion: m.outputCostPerMillion } : {}),
  };
}

/** An OpenAI `/v1/models` list of catalog entries, sorted by name (then provider) and without repeats. */
export function catalogModelList(entries: Iterable<CatalogModel>): {
  object: 'list';
  data: { id: string; object: 'model'; created: number; owned_by: string; context_window?: number }[];
} {
  const unique = new Map<string, CatalogModel>();
  for (const m of entries) if (!unique.has(keyOf(m.provider, m.name))) unique.set(keyOf(m.provider, m.name), m);
  const sorted = [...unique.values()].sort((a, b) =>
    a.name === b.name ? (a.provider < b.provider ? -1 : 1) : a.name < b.name ? -1 : 1,
  );
  return {
    object: 'list',
    data: sorted.map((m) => ({
      id: m.name,
      object: 'model' as const,
      created: 0,
      owned_by: m.provider,
      ...(m.contextWindow !== undefined ? { context_window: m.contextWindow } : {}),
    })),
  };
}
