// A temporary directory laid out as the kubelet writes a ConfigMap volume (`key` → `..data/key` → `..<version>/key`),
// and its atomic update: a new version directory, `..data_tmp` renamed over `..data`, the old one removed.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ConfigMapVolume {
  dir: string;
  /** The path a pod reads: `<dir>/<key>`. */
  file: string;
  /** Publishes new content as the kubelet does. */
  swap(text: string): void;
  remove(): void;
}

export function configMapVolume(key: string, text: string): ConfigMapVolume {
  const dir = mkdtempSync(join(tmpdir(), 'gw-configmap-'));
  let version = 0;
  const write = (t: string): string => {
    const v = `..2026_11_29_${++version}`;
    mkdirSync(join(dir, v));
    writeFileSync(join(dir, v, key), t);
    return v;
  };
  let current = write(text);
  symlinkSync(current, join(dir, '..data'));
  symlinkSync(join('..data', key), join(dir, key));
  return {
    dir,
    file: join(dir, key),
    swap(t) {
      const next = write(t);
      symlinkSync(next, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      rmSync(join(dir, current), { recursive: true });
      current = next;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
