// `make image` end to end: takes the OCI archive `make test` built (scripts/image/build.sh; built here when
// missing or older than dist/ and the other inputs, see support/image-archive.ts), checks its documents and
// content addresses, unpacks the layer into a root filesystem and runs the image's own entrypoint there
// with chroot as its non-root user and only the image's environment: `gw --version`, then a standalone
// proxy that an MCP SDK client reaches on loopback and calls a tool through. chroot stands in for a
// container runtime (no Docker engine here); it needs root, which the test machines run as.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../proxy/ports.js';
import { startHttpFixture, type HttpFixture } from '../../fixtures/mcp-http-server.js';
import { currentImageArchive, gwVersion as version } from '../support/image-archive.js';

const run = promisify(execFile);
// Absolute: the child gets only the image's environment, whose PATH does not name the host's sbin.
const CHROOT = '/usr/sbin/chroot';

interface ImageConfig {
  config: { User: string; Entrypoint: string[]; Env: string[]; WorkingDir: string };
  rootfs: { diff_ids: string[] };
}

describe('make image', () => {
  let dir: string;
  let rootfs: string;
  let image: ImageConfig;
  let fixture: HttpFixture;
  let proxy: ChildProcess | undefined;
  const blob = (digest: string): Buffer =>
    readFileSync(join(dir, 'oci', 'blobs/sha256', digest.replace('sha256:', '')));

  /** The image's entrypoint + `args` under chroot, as its user, with nothing but its own environment. */
  function inImage(args: string[]): [string, string[], { env: Record<string, string> }] {
    const env = Object.fromEntries(image.config.Env.map((e) => e.split('=', 2) as [string, string]));
    return [CHROOT, [`--userspec=${image.config.User}`, rootfs, ...image.config.Entrypoint, ...args], { env }];
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-image-'));
    const archive = await currentImageArchive();
    mkdirSync(join(dir, 'oci'));
    await run('tar', ['-xf', archive, '-C', join(dir, 'oci')]);
    fixture = await startHttpFixture({ id: 'image' });
  }, 600_000);

  afterAll(async () => {
    proxy?.kill('SIGKILL');
    await fixture?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds an OCI layout and a Docker manifest naming the controller and proxy images, with content-addressed blobs', () => {
    const index = JSON.parse(readFileSync(join(dir, 'oci/index.json'), 'utf8')) as {
      manifests: { digest: string; annotations: Record<string, string> }[];
    };
    expect(index.manifests.map((m) => m.annotations['io.containerd.image.name'])).toEqual([
      `ghcr.io/gw-dev/controller:${version}`,
      `ghcr.io/gw-dev/proxy:${version}`,
    ]);
    const docker = JSON.parse(readFileSync(join(dir, 'oci/manifest.json'), 'utf8')) as { RepoTags: string[] }[];
    expect(docker[0]?.RepoTags).toHaveLength(2);
    const manifest = JSON.parse(blob(index.manifests[0]!.digest).toString()) as {
      config: { digest: string };
      layers: { digest: string }[];
    };
    for (const d of [index.manifests[0]!.digest, manifest.config.digest, manifest.layers[0]!.digest])
      expect(`sha256:${createHash('sha256').update(blob(d)).digest('hex')}`).toBe(d);
    image = JSON.parse(blob(manifest.config.digest).toString()) as ImageConfig;
    expect(image.config.User).toBe('65532:65532');
    rootfs = join(dir, 'rootfs');
    mkdirSync(rootfs);
    writeFileSync(join(dir, 'layer.tar.gz'), blob(manifest.layers[0]!.digest));
  });

  it('runs gw --version as the non-root user with only the image environment', async () => {
    await run('tar', ['-xzf', join(dir, 'layer.tar.gz'), '-C', rootfs]);
    const [cmd, args, opts] = inImage(['--version']);
    const { stdout } = await run(cmd, args, opts);
    expect(stdout.trim()).toBe(`gw ${version}`);
  });

  it('serves MCP as a standalone proxy: an SDK client initializes and calls a tool through it', async () => {
    const [port, ready, metrics] = [await freePort(), await freePort(), await freePort()];
    writeFileSync(
      join(rootfs, 'tmp/config.yaml'),
      `mcp:\n  port: ${port}\n  host: 127.0.0.1\n  targets:\n    - name: fixture\n      streamableHttp: { url: ${fixture.url} }\n`,
    );
    const [cmd, args, opts] = inImage([
      'proxy',
      '-f',
      '/tmp/config.yaml',
      '--ready-address',
      `127.0.0.1:${ready}`,
      '--metrics-address',
      `127.0.0.1:${metrics}`,
    ]);
    proxy = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    proxy.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    proxy.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    // A guard only: the loop ends as soon as the proxy answers ready, which a loaded machine can take long for.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${ready}/healthz/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline || proxy.exitCode !== null)
        throw new Error(`the proxy in the image never got ready:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const client = new Client({ name: 'image-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    const result = await client.callTool({ name: 'echo', arguments: { text: 'from the image' } });
    expect(JSON.stringify(result.content)).toContain('from the image');
    await client.close();
  }, 180_000);
});
