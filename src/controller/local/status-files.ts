// One status file per object under --status-dir: <Kind>/<namespace>/<name>.yaml (cluster-scoped:
// <Kind>/<name>.yaml). Written only when the content changed; removed when the object goes away.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { sortKeys } from '../../translate/objects/read.js';
import type { StoredObject } from '../../translate/objects/types.js';

export function statusFilePath(statusDir: string, objKey: string): string {
  return join(statusDir, `${objKey}.yaml`);
}

export function renderStatusFile(entry: StoredObject, status: unknown): string {
  const meta = entry.obj.metadata;
  const doc = {
    apiVersion: entry.obj.apiVersion ?? '',
    kind: entry.kind,
    metadata: {
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      ...(meta.generation !== undefined ? { generation: meta.generation } : {}),
    },
    source: entry.source,
    ...(entry.problems.length ? { problems: entry.problems.map((p) => `${p.path}: ${p.message}`) } : {}),
    status: sortKeys(status),
  };
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** Returns true when the file was (re)written. */
export function writeStatusFile(statusDir: string, objKey: string, text: string): boolean {
  const path = statusFilePath(statusDir, objKey);
  let old: string | undefined;
  try {
    old = readFileSync(path, 'utf8');
  } catch {
    old = undefined;
  }
  if (old === text) return false;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return true;
}

export function removeStatusFile(statusDir: string, objKey: string): void {
  rmSync(statusFilePath(statusDir, objKey), { force: true });
}
