// Applies GwParameters overlays to a rendered object: metadata labels and annotations merged,
// `spec` by strategic merge patch with the kind's merge keys and directives.
import type { Problem } from '../problem.js';
import type { JsonObject } from './json.js';
import { isObject, setOwn } from './json.js';
import type { SourcedOverlay } from './parameters.js';
import { smpSchemaFor } from './smp-schema.js';
import { SmpError, strategicMergePatch } from './strategic-merge.js';

/** Kinds whose overlay `spec` patches top-level fields, because the kind has no `spec`. */
const specless = new Set(['ServiceAccount']);

export function applyOverlays(obj: JsonObject, overlays: readonly SourcedOverlay[], problems: Problem[]): JsonObject {
  const apiVersion = String(obj.apiVersion);
  const kind = String(obj.kind);
  const schema = smpSchemaFor(apiVersion, kind);
  if (!schema) throw new Error(`no strategic merge schema for ${apiVersion} ${kind}`);
  let out = obj;
  for (const { overlay, object, path } of overlays) {
    const metadata: JsonObject = {};
    if (overlay.metadata?.labels) metadata.labels = overlay.metadata.labels;
    if (overlay.metadata?.annotations) metadata.annotations = overlay.metadata.annotations;
    const patch: JsonObject = {};
    if (Object.keys(metadata).length > 0) patch.metadata = metadata;
    const spec = overlay.spec as JsonObject | undefined;
    if (spec && specless.has(kind)) {
      for (const [k, v] of Object.entries(spec)) {
        if (k === 'apiVersion' || k === 'kind' || k === 'metadata') {
          problems.push({
            source: 'cluster',
            object,
            path: `${path}.spec.${k}`,
            message: `cannot be set by an overlay of a ${kind}`,
          });
          continue;
        }
        setOwn(patch, k, v);
      }
    } else if (spec) {
      if (!isObject(spec)) {
        problems.push({ source: 'cluster', object, path: `${path}.spec`, message: 'must be an object' });
        continue;
      }
      patch.spec = spec;
    }
    try {
      out = strategicMergePatch(out, patch, schema);
    } catch (e) {
      if (!(e instanceof SmpError)) throw e;
      const inner = specless.has(kind) ? `spec.${e.path}` : e.path;
      problems.push({ source: 'cluster', object, path: inner ? `${path}.${inner}` : path, message: e.reason });
    }
  }
  return out;
}
