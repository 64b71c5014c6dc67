// YAML text → objects for the store. Parsing is separate from reading files so tests and the CLI share it.
import { parseManifests as parseYaml } from '../../api/validate.js';
import type { Problem } from '../../problem.js';
import { rec, str } from '../../translate/objects/read.js';
import { isKind, type Kind, type KubeObject } from '../../translate/objects/types.js';

export interface ParsedObject {
  kind: Kind;
  obj: KubeObject;
}

const LIST_KINDS = new Set(['List', 'GwModelList']);

export function parseManifests(text: string, source: string): { objects: ParsedObject[]; problems: Problem[] } {
  const objects: ParsedObject[] = [];
  const problems: Problem[] = [];
  // YAML 1.1 like kubectl, via the API's parser, so `gw validate` and the controller read files alike.
  const parsed = parseYaml(text, source);
  problems.push(...parsed.problems);
  parsed.manifests.forEach((value, i) => collect(value, `object ${i + 1}`));
  function collect(value: unknown, where: string): void {
    const o = rec(value);
    const kind = str(o?.kind);
    if (!o || !kind) {
      problems.push({ source, path: '', message: `${where} has no kind` });
      return;
    }
    if (LIST_KINDS.has(kind)) {
      (Array.isArray(o.items) ? o.items : []).forEach((item, j) =>
        collect(kind === 'GwModelList' ? { kind: 'GwModel', ...(rec(item) ?? {}) } : item, `${where} item ${j + 1}`),
      );
      return;
    }
    const kindName = kind === 'XListenerSet' ? 'ListenerSet' : kind;
    if (!isKind(kindName)) {
      problems.push({
        source,
        object: `${kind} ${str(rec(o.metadata)?.name) ?? ''}`,
        path: 'kind',
        message: `kind ${kind} is not one the controller reads; the object is ignored`,
      });
      return;
    }
    const meta = rec(o.metadata);
    if (!meta || !str(meta.name)) {
      problems.push({ source, object: kind, path: 'metadata.name', message: `${where} must have metadata.name` });
      return;
    }
    objects.push({ kind: kindName, obj: kindName === 'Secret' ? secretAsStored(o as KubeObject) : (o as KubeObject) });
  }
  return { objects, problems };
}

/**
 * A Secret as the API server stores it: each `stringData` key is written into `data` base64-encoded,
 * replacing a `data` key of the same name, and `stringData` itself is not kept (it is write-only).
 */
export function secretAsStored(obj: KubeObject): KubeObject {
  const stringData = rec(obj.stringData);
  if (!stringData) return obj;
  const data: Record<string, unknown> = { ...(rec(obj.data) ?? {}) };
  for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v ?? ''), 'utf8').toString('base64');
  const { stringData: _written, ...rest } = obj;
  return { ...rest, data } as KubeObject;
}
