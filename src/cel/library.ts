// @bufbuild/cel (with @bufbuild/protobuf and re2 it holds about 7 MB of heap) is loaded by the first
// expression compiled, not by importing a module that may compile one: a proxy whose snapshot has no CEL
// never loads it. The load is synchronous so every caller keeps compiling synchronously (at snapshot
// apply; nothing compiles per request).
import { createRequire } from 'node:module';
import type * as Cel from '@bufbuild/cel';
import type * as CelExt from '@bufbuild/cel/ext';

export type CelLibrary = typeof Cel;
export type CelExtensions = typeof CelExt;

/** The RE2 engine @bufbuild/cel runs `matches` with (its `re2` option's shape). */
export interface Re2 {
  compile(pattern: string): { test(input: string): boolean };
}

let loaded: { cel: CelLibrary; ext: CelExtensions; re2: Re2 } | undefined;

function load(): { cel: CelLibrary; ext: CelExtensions; re2: Re2 } {
  const require = createRequire(import.meta.url);
  const esm = (specifier: string): string => require.resolve(specifier).replace('/dist/cjs/', '/dist/esm/');
  // @bufbuild/cel's own RE2 engine, resolved from its package so it is the instance it depends on.
  const fromCel = createRequire(require.resolve('@bufbuild/cel'));
  const re2 = (fromCel('@bufbuild/re2') as { RE2JS: Re2 }).RE2JS;
  try {
    // The ES module build (require(esm), Node 20.19+ and 22.12+): the very instance a static import of
    // @bufbuild/cel elsewhere in the process shares, so the library is never held twice.
    return {
      cel: require(esm('@bufbuild/cel')) as CelLibrary,
      ext: require(esm('@bufbuild/cel/ext')) as CelExtensions,
      re2,
    };
  } catch {
    // Older Node: the CommonJS build. Its values still pass the other build's isCel* checks (Symbol.for brands).
    return { cel: require('@bufbuild/cel') as CelLibrary, ext: require('@bufbuild/cel/ext') as CelExtensions, re2 };
  }
}

/** The CEL library, loaded on the first call. */
export function celLibrary(): { cel: CelLibrary; ext: CelExtensions; re2: Re2 } {
  return (loaded ??= load());
}

/** The library if an expression was compiled already (no CEL value exists before that). */
export function celLibraryIfLoaded(): CelLibrary | undefined {
  return loaded?.cel;
}
