// One dynamic import shared by every caller. A load that fails (a module file missing after an upgrade in
// place, an I/O error) is forgotten, so the next apply or request tries again instead of inheriting the
// rejection for the life of the process.

/** A module loaded on first use: `load()` imports it once, `loaded()` answers without a promise once it is in. */
export interface LazyModule<T> {
  load(): Promise<T>;
  loaded(): T | undefined;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let loaded: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    load: () =>
      (loading ??= importer().then(
        (m) => (loaded = m),
        (err: unknown) => {
          loading = undefined;
          throw err;
        },
      )),
    loaded: () => loaded,
  };
}
