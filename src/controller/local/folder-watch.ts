// Watches a manifests folder so that every way a file gets replaced is seen: `sed -i`, an editor's
// safe write (write a temporary file, rename it over), `git checkout`, a folder moved in or out.
// Node's recursive fs.watch on Linux watches each file's inode, which a rename-save replaces, so later
// edits go unseen. Here each folder is watched on its own (a folder's watch reports its entries by name,
// whatever inode they have now), the set of folders is re-read on every event, and a poll of the
// files' identities (inode, size, mtime) catches what a watch cannot (the root replaced, a platform
// without inotify, a watch that failed).
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

export interface FolderWatch {
  close(): void;
}

export interface FolderWatchOptions {
  /** The poll's interval; 0 turns it off. Default 1000 ms. */
  pollMs?: number;
  /** False: poll only (no fs.watch). Default true. */
  watch?: boolean;
}

/** Folders below root (root first), skipping dot-folders such as .git as the reader does. */
function foldersOf(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    out.push(d);
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const full = join(d, name);
      if (statSync(full, { throwIfNoEntry: false })?.isDirectory()) walk(full);
    }
  };
  walk(root);
  return out;
}

/** What the poll compares: every entry's path with its inode, size and modification time. */
function identity(root: string): string {
  const parts: string[] = [];
  for (const d of foldersOf(root)) {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      parts.push(`${d}:gone`);
      continue;
    }
    for (const name of names) {
      const st = statSync(join(d, name), { throwIfNoEntry: false });
      if (st) parts.push(`${join(d, name)}:${st.ino}:${st.size}:${st.mtimeMs}`);
    }
  }
  return parts.join('\n');
}

export function watchFolder(root: string, onChange: () => void, opts: FolderWatchOptions = {}): FolderWatch {
  const watchers = new Map<string, { watcher: FSWatcher; ino: number }>();
  let closed = false;
  let last = identity(root);
  const changed = (): void => {
    if (closed) return;
    sync();
    last = identity(root);
    onChange();
  };
  const sync = (): void => {
    if (opts.watch === false) return;
    const now = new Map<string, number>();
    for (const d of foldersOf(root)) {
      const st = statSync(d, { throwIfNoEntry: false });
      if (st?.isDirectory()) now.set(d, st.ino);
    }
    for (const [d, w] of watchers)
      if (now.get(d) !== w.ino) {
        w.watcher.close();
        watchers.delete(d);
      }
    for (const [d, ino] of now) {
      if (watchers.has(d)) continue;
      try {
        const watcher = watch(d, changed);
        // A watched folder that goes away errors on some platforms: the next sync drops or re-opens it.
        watcher.on('error', () => queueMicrotask(changed));
        watchers.set(d, { watcher, ino });
      } catch {
        // The folder vanished between listing and watching; the poll or the next event catches up.
      }
    }
  };
  sync();
  const poll =
    (opts.pollMs ?? 1000) > 0
      ? setInterval(() => {
          const now = identity(root);
          if (now !== last) changed();
        }, opts.pollMs ?? 1000)
      : undefined;
  poll?.unref();
  return {
    close: () => {
      closed = true;
      clearInterval(poll);
      for (const w of watchers.values()) w.watcher.close();
      watchers.clear();
    },
  };
}
