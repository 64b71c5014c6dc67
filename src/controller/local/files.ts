// Reads a manifests folder: every .yaml / .yml / .json file below it, in a stable order.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Problem } from '../../problem.js';
import { parseManifests, type ParsedObject } from './manifests.js';

export interface FolderContents {
  /** Source (path relative to the folder) → objects parsed from it. */
  files: Map<string, ParsedObject[]>;
  problems: Problem[];
}

const MANIFEST = /\.(ya?ml|json)$/i;

export function manifestFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name.startsWith('.')) continue;
      const full = join(d, name);
      const st = statSync(full, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(full);
      else if (st?.isFile() && MANIFEST.test(name)) out.push(full);
    }
  };
  walk(dir);
  return out;
}

export function readFolder(dir: string): FolderContents {
  const files = new Map<string, ParsedObject[]>();
  const problems: Problem[] = [];
  for (const full of manifestFiles(dir)) {
    const source = relative(dir, full);
    let text: string;
    try {
      text = readFileSync(full, 'utf8');
    } catch (err) {
      problems.push({ source, path: '', message: `cannot be read: ${(err as Error).message}` });
      continue;
    }
    const parsed = parseManifests(text, source);
    files.set(source, parsed.objects);
    problems.push(...parsed.problems);
  }
  return { files, problems };
}
