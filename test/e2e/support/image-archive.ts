// `make image`'s archive (scripts/image/build.sh), shared by the e2e files that need it: `make test` builds it
// once before the e2e phase, and a file reuses it while it is current instead of building a second one.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './paths.js';

/** package.json's version: the archive's name and its images' tag. */
export const gwVersion = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;
export const imageArchive = join(repoRoot, 'dist', 'image', `gw-${gwVersion}.oci.tar`);

/** What build.sh copies or runs: an archive older than any of them holds something else. */
const INPUTS = ['package.json', 'package-lock.json', 'bin', 'dist', 'proto', 'scripts/image'];

/** The newest file under `path` (dist/image, the archive's own folder, left out) and its modification time. */
function newest(path: string): { path: string; mtimeMs: number } {
  const stat = statSync(path);
  if (!stat.isDirectory()) return { path, mtimeMs: stat.mtimeMs };
  let found = { path, mtimeMs: 0 };
  for (const entry of readdirSync(path)) {
    const child = join(path, entry);
    if (child === join(repoRoot, 'dist', 'image')) continue;
    const n = newest(child);
    if (n.mtimeMs > found.mtimeMs) found = n;
  }
  return found;
}

/** Why the archive must be built (missing, or older than an input), or undefined when it is current. */
export function imageArchiveOutdated(): string | undefined {
  if (!existsSync(imageArchive)) return `${relative(repoRoot, imageArchive)} is missing`;
  const built = statSync(imageArchive).mtimeMs;
  const input = INPUTS.map((p) => join(repoRoot, p))
    .filter((p) => existsSync(p))
    .map(newest)
    .find((n) => n.mtimeMs > built);
  return input && `${relative(repoRoot, input.path)} is newer than ${relative(repoRoot, imageArchive)}`;
}

/** The archive's path, after building it with scripts/image/build.sh (`make image`) when it is not current. */
export async function currentImageArchive(): Promise<string> {
  const why = imageArchiveOutdated();
  if (why === undefined) return imageArchive;
  process.stderr.write(`image: ${why}; building it (scripts/image/build.sh, as \`make image\` does)\n`);
  await promisify(execFile)('bash', ['scripts/image/build.sh'], { cwd: repoRoot, maxBuffer: 16 << 20 });
  return imageArchive;
}
