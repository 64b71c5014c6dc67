// Where the built single-page app lies: `dist/ui` beside `dist/proxy` (scripts/build-ui.mjs writes it).
import { fileURLToPath } from 'node:url';

export function uiDir(): string {
  return fileURLToPath(new URL('../../ui/', import.meta.url));
}
