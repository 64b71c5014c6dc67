// `/v1/models` from the model catalog: the entries a route can reach. On an `ai` route, those its providers
// serve; on a GwModel route, those a public model answers to by name and can call. Behaviour: docs/llm-providers.md
// "Model catalog".
import type { LlmRoute } from './llm-route.js';
import type { LlmProvider } from './llm-provider.js';
import { matches, modelList, type ModelEntry, type ModelTable } from './model-routing.js';
import { catalogModelList, type CatalogModel, type ModelCatalog } from './model-catalog.js';

type ModelListing = ReturnType<typeof catalogModelList>;

/** The route's `/v1/models` answer: catalog entries it can reach (GwModel routes keep their exact model names too). */
export function routeModelList(route: LlmRoute, catalog: ModelCatalog): ModelListing {
  if (!route.models) return catalogModelList(route.groups.flat().flatMap((p) => catalog.servedBy(p.kind, p.model)));
  const table = route.models;
  const reached: CatalogModel[] = [];
  for (const m of table.public) {
    for (const { kind, model } of callable(table, table.byName.get(m.name)))
      reached.push(...catalog.servedBy(kind, model).filter((e) => matches(m, e.name)));
  }
  const listed = catalogModelList(reached);
  const ids = new Set(listed.data.map((d) => d.id));
  // An exact-match model the catalog does not describe is still served: listed as before (without metadata).
  const rest = modelList(table).data.filter((d) => !ids.has(d.id));
  return { object: 'list', data: [...listed.data, ...rest.map((d) => ({ ...d, created: 0 }))] };
}

/** The provider kinds (and fixed upstream models) a GwModel can call: its own provider, or its targets'. */
function callable(table: ModelTable, e: ModelEntry | undefined): { kind: string; model: string | undefined }[] {
  const usable = (p: ModelEntry['provider']): p is LlmProvider => p !== undefined && !('error' in p);
  if (!e) return [];
  if (e.provider !== undefined) return usable(e.provider) ? [{ kind: e.provider.kind, model: e.provider.model }] : [];
  return (e.model.routing?.targets ?? []).flatMap((t) => {
    const p = table.byName.get(t.model)?.provider;
    return usable(p) ? [{ kind: p.kind, model: t.modelName || p.model }] : [];
  });
}
