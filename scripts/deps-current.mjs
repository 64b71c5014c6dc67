// Exit 0 when node_modules already holds exactly what package-lock.json names (npm's own record of the
// installed tree, node_modules/.package-lock.json, agrees entry by entry), so `make` need not run `npm ci`,
// which deletes node_modules first. Any difference, or no record, exits 1.
import { readFileSync } from 'node:fs';

try {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')).packages;
  const installed = JSON.parse(readFileSync('node_modules/.package-lock.json', 'utf8')).packages;
  const wanted = Object.entries(lock).filter(([path, p]) => path !== '' && !p.optional);
  const stale = wanted.filter(([path, p]) => installed[path]?.version !== p.version);
  process.exitCode = stale.length === 0 ? 0 : 1;
} catch {
  process.exitCode = 1;
}
