import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Per-run e2e state (kubeconfig, logs); under .cache so it is git-ignored. */
export const e2eStateDir = join(repoRoot, '.cache', 'e2e');
