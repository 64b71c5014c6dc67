// Regenerates src/ir/gen/ from proto/: `npx tsx src/ir/generate.ts [outDir]`.
// The flags fix the TypeScript shape the loader and runtime share: camelCase fields, enums as their
// names, 64-bit integers as strings, every field present (defaults), and a `kind`/`transport`
// discriminator per oneof.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const protoDir = path.join(repoRoot, 'proto');
export const protoFile = 'gw/ir/v1/ir.proto';
export const defaultOutDir = path.join(repoRoot, 'src/ir/gen');

/** Options shared by type generation and by `loadIrRoot` decoding, so both agree on the shape. */
export const conversion = { longs: String, enums: String, defaults: true, oneofs: true } as const;

export function generateIrTypes(outDir: string = defaultOutDir): void {
  const bin = path.join(repoRoot, 'node_modules/.bin/proto-loader-gen-types');
  execFileSync(
    bin,
    [
      '--longs=String',
      '--enums=String',
      '--defaults',
      '--oneofs',
      '--includeComments',
      '-I',
      protoDir,
      '-O',
      outDir,
      protoFile,
    ],
    { stdio: 'inherit' },
  );
  for (const file of walk(outDir)) writeFileSync(file, portable(readFileSync(file, 'utf8')));
}

// The generator writes the absolute proto path and extensionless imports; NodeNext ESM needs `.js`
// and a checkout anywhere must regenerate byte-identical files.
function portable(text: string): string {
  return text
    .replace(/^\/\/ Original file: .*\/proto\//m, '// Original file: proto/')
    .replace(/from '(\.{1,2}\/[^']+?)(?<!\.js)';/g, "from '$1.js';");
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : full.endsWith('.ts') ? [full] : [];
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  generateIrTypes(process.argv[2] ?? defaultOutDir);
}
