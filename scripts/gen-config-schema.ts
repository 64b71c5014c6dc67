// Writes schema/config.json from the TypeBox source the loader validates with:
// `npx tsx scripts/gen-config-schema.ts` (test/config/schema-file.test.ts fails when it is stale).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigFile } from '../src/config/schema.js';

export const schemaFile = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../schema/config.json');

export function renderConfigSchema(): string {
  return `${JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...ConfigFile }, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  writeFileSync(schemaFile, renderConfigSchema());
}
