// The pod sandbox image of the real node: test/cluster/pause (a static binary that waits for SIGTERM) as a
// Docker image archive, which `ctr images import` reads. Kubernetes' own pause image would come from a registry.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Writes the archive under `dir` and returns its path; `name` is its repository:tag. */
export async function buildPauseArchive(binary: string, dir: string, name: string): Promise<string> {
  const rootfs = join(dir, 'rootfs');
  mkdirSync(rootfs, { recursive: true });
  copyFileSync(binary, join(rootfs, 'pause'));
  const layer = join(dir, 'layer.tar');
  await run('tar', ['--owner=0', '--group=0', '--numeric-owner', '--mode=0755', '-C', rootfs, '-cf', layer, 'pause']);
  const diffId = `sha256:${createHash('sha256').update(readFileSync(layer)).digest('hex')}`;
  const config = {
    architecture: 'amd64',
    os: 'linux',
    config: { Entrypoint: ['/pause'], User: '65535:65535' },
    rootfs: { type: 'layers', diff_ids: [diffId] },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify([{ Config: 'config.json', RepoTags: [name], Layers: ['layer.tar'] }]),
  );
  const archive = join(dir, 'pause.tar');
  await run('tar', ['-C', dir, '-cf', archive, 'manifest.json', 'config.json', 'layer.tar']);
  return archive;
}
