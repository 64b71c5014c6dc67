// @bufbuild/cel (with @bufbuild/protobuf and re2 it holds about 7 MB of heap) is loaded by the first
// expression compiled, not by importing a module that may compile one: a proxy whose snapshot has no CEL
// never loads it. The load is synchronous, from the package's CommonJS build, so every caller keeps
// compiling synchronously (at snapshot apply; nothing compiles per request). Values cross to code that
// imports the ESM build safely: the package tells its values apart by Symbol.for brands.
import { createRequire } from 'node:module';
import type * as Cel from '@bufbuild/cel';
import type * as CelExt from '@bufbuild/cel/ext';

export type CelLibrary = typeof Cel;
export type CelExtensions = typeof CelExt;

let loaded: { cel: CelLibrary; ext: CelExtensions } | undefined;

/** The CEL library, loaded on the first call. */
export function celLibrary(): { cel: CelLibrary; ext: CelExtensions } {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    loaded = { cel: require('@bufbuild/cel') as CelLibrary, ext: require('@bufbuild/cel/ext') as CelExtensions };
  }
  return loaded;
}

/** The library if an expression was compiled already (no CEL value exists before that). */
export function celLibraryIfLoaded(): CelLibrary | undefined {
  return loaded?.cel;
}
