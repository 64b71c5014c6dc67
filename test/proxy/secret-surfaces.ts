// What a user or operator can read about routes besides the traffic itself: `gw explain` of each route and
// every object status, as the translator renders them for `manifests`. Tests grep this text (with the logs,
// error bodies and metrics of their run) for the secret values and tokens they know.
import { parseManifests } from '../../src/controller/local/manifests.js';
import type { TranslateOptions } from '../../src/translate/objects/context.js';
import { createStore, putObject } from '../../src/translate/objects/store.js';
import { translateAll } from '../../src/translate/state.js';
import { explainRoute, renderExplanation } from '../../src/translate/status/explain.js';

export function explainedAndStatuses(
  manifests: string,
  routes: readonly string[],
  options: Partial<TranslateOptions> = {},
): { explained: string; statuses: string } {
  const store = createStore();
  for (const { kind, obj } of parseManifests(manifests, 't.yaml').objects) putObject(store, kind, obj, 't.yaml');
  const state = translateAll(store, {
    controllerName: 'gw.dev/gateway-controller',
    now: '2026-01-01T00:00:00Z',
    ...options,
  });
  const explained = routes.map((name) => renderExplanation(explainRoute(state, 'HTTPRoute', 'default', name)));
  return { explained: explained.join('\n'), statuses: JSON.stringify([...state.statuses]) };
}
