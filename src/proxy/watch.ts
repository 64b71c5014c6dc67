// Reload on file change. Watches the directory, not the file, because editors and ConfigMap
// updates replace the file by rename, which ends a watch on the old inode.
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export function watchFile(file: string, onChange: () => void, debounceMs = 150): FSWatcher {
  const dir = path.dirname(path.resolve(file));
  const base = path.basename(file);
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, (_event, name) => {
    // Kubernetes ConfigMap volumes swap a `..data` symlink, so any change there counts too.
    if (name !== null && name !== base && !name.startsWith('..')) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
  });
  watcher.on('close', () => clearTimeout(timer));
  return watcher;
}
