// Local mode keeps seeing a file after it is replaced: `sed -i`, an editor's rename-over, `git checkout`,
// a folder moved in. Each case edits the file again after the replacement, which a watch on the old
// inode (Node's recursive fs.watch on Linux) never reports.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, it } from 'vitest';
import { LocalController } from '../../../src/controller/local/local-controller.js';
import type { FolderWatchOptions } from '../../../src/controller/local/folder-watch.js';
import { getObject } from '../../../src/translate/objects/store.js';

const SERVICE = (generation: number) => `apiVersion: v1
kind: Service
metadata: {name: echo, namespace: default, generation: ${generation}}
spec: {ports: [{port: 80}]}
`;

const dirs: string[] = [];
let controller: LocalController | undefined;
afterEach(() => {
  controller?.stop();
  controller = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A started controller on a fresh folder holding service.yaml (generation 1), and a wait for each reload. */
function start(watch: FolderWatchOptions = { pollMs: 0 }, file = 'service.yaml') {
  const manifests = mkdtempSync(join(tmpdir(), 'gw-watch-'));
  dirs.push(manifests);
  writeFileSync(join(manifests, file), SERVICE(1));
  let seen: (() => void) | undefined;
  controller = new LocalController({
    manifests,
    debounceMs: 10,
    watch,
    translate: { controllerName: 'gw.dev/gateway-controller' },
    logger: pino({ level: 'silent' }),
    onSnapshots: () => seen?.(),
  });
  const c = controller;
  c.start();
  const generation = () => getObject(c.store, 'Service', 'default/echo')?.obj.metadata.generation;
  /** Resolves at the first reload after which the Service has this generation. */
  const reloadedTo = (g: number | undefined) =>
    new Promise<void>((resolve) => {
      seen = () => {
        if (generation() === g) resolve();
      };
    });
  return { manifests, generation, reloadedTo };
}

describe('local mode folder watch', () => {
  it('sees edits after sed -i replaced the file', async () => {
    const { manifests, reloadedTo } = start();
    const file = join(manifests, 'service.yaml');
    let next = reloadedTo(2);
    execFileSync('sed', ['-i', 's/generation: 1/generation: 2/', file]);
    await next;
    next = reloadedTo(3);
    execFileSync('sed', ['-i', 's/generation: 2/generation: 3/', file]);
    await next;
    next = reloadedTo(4);
    writeFileSync(file, SERVICE(4));
    await next;
  });

  it('sees edits after an editor saved by renaming a temporary file over it', async () => {
    const { manifests, reloadedTo } = start();
    const file = join(manifests, 'service.yaml');
    let next = reloadedTo(2);
    writeFileSync(join(manifests, '.service.yaml.swp'), SERVICE(2));
    renameSync(join(manifests, '.service.yaml.swp'), file);
    await next;
    next = reloadedTo(3);
    writeFileSync(file, SERVICE(3));
    await next;
  });

  it('sees edits after git checkout replaced the file', async () => {
    const { manifests, reloadedTo } = start();
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: manifests, stdio: 'ignore' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'one');
    const file = join(manifests, 'service.yaml');
    writeFileSync(file, SERVICE(2));
    await reloadedTo(2);
    let next = reloadedTo(1);
    git('checkout', '--', 'service.yaml');
    await next;
    next = reloadedTo(5);
    writeFileSync(file, SERVICE(5));
    await next;
  });

  it('sees a folder moved in, and edits inside it', async () => {
    const { manifests, reloadedTo } = start({ pollMs: 0 }, 'other.yaml');
    writeFileSync(join(manifests, 'other.yaml'), '');
    const outside = mkdtempSync(join(tmpdir(), 'gw-watch-out-'));
    dirs.push(outside);
    mkdirSync(join(outside, 'team'));
    writeFileSync(join(outside, 'team', 'service.yaml'), SERVICE(7));
    let next = reloadedTo(7);
    renameSync(join(outside, 'team'), join(manifests, 'team'));
    await next;
    next = reloadedTo(8);
    writeFileSync(join(manifests, 'team', 'service.yaml'), SERVICE(8));
    await next;
    next = reloadedTo(undefined);
    renameSync(join(manifests, 'team'), join(outside, 'gone'));
    await next;
  });

  it('falls back to polling the files when no watch reports them', async () => {
    const { manifests, reloadedTo } = start({ watch: false, pollMs: 20 });
    const next = reloadedTo(2);
    writeFileSync(join(manifests, '.tmp'), SERVICE(2));
    renameSync(join(manifests, '.tmp'), join(manifests, 'service.yaml'));
    await next;
  });
});
