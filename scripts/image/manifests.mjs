// The JSON documents of the image archive (scripts/image/build.sh): the OCI image config, manifest and
// index, and Docker's manifest.json beside them so `docker load` reads the same blobs.
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, layerPath, diffId, registry, tag, version, nodeVersion, nonroot] = process.argv.slice(2);
const sha = (buf) => createHash('sha256').update(buf).digest('hex');

/** Writes `buf` as a content-addressed blob and returns its descriptor. */
function blob(buf, mediaType) {
  const digest = sha(buf);
  writeFileSync(join(dir, 'blobs/sha256', digest), buf);
  return { mediaType, digest: `sha256:${digest}`, size: buf.length };
}

const layerBuf = readFileSync(layerPath);
const layer = {
  mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
  digest: `sha256:${sha(layerBuf)}`,
  size: layerBuf.length,
};
copyFileSync(layerPath, join(dir, 'blobs/sha256', layer.digest.slice(7)));

const created = '1970-01-01T00:00:00Z';
const config = blob(
  Buffer.from(
    JSON.stringify({
      created,
      architecture: 'amd64',
      os: 'linux',
      config: {
        User: `${nonroot}:${nonroot}`,
        Entrypoint: ['/usr/local/bin/node', '/app/bin/gw.js'],
        Cmd: ['--help'],
        WorkingDir: '/app',
        Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'NODE_ENV=production', 'HOME=/home/nonroot'],
        ExposedPorts: { '9978/tcp': {}, '9092/tcp': {}, '9093/tcp': {}, '15020/tcp': {}, '15021/tcp': {} },
        Labels: {
          'org.opencontainers.image.title': 'gw',
          'org.opencontainers.image.version': version,
          'org.opencontainers.image.licenses': 'Apache-2.0',
          'dev.gw.node.version': nodeVersion,
        },
      },
      rootfs: { type: 'layers', diff_ids: [`sha256:${diffId}`] },
      history: [{ created, created_by: 'scripts/image/build.sh' }],
    }),
  ),
  'application/vnd.oci.image.config.v1+json',
);
const manifest = blob(
  Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config,
      layers: [layer],
    }),
  ),
  'application/vnd.oci.image.manifest.v1+json',
);
const names = ['controller', 'proxy'].map((r) => `${registry}/${r}:${tag}`);
writeFileSync(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
writeFileSync(
  join(dir, 'index.json'),
  JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: names.map((name) => ({
      ...manifest,
      annotations: { 'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': name },
    })),
  }),
);
writeFileSync(
  join(dir, 'manifest.json'),
  JSON.stringify([
    {
      Config: `blobs/sha256/${config.digest.slice(7)}`,
      RepoTags: names,
      Layers: [`blobs/sha256/${layer.digest.slice(7)}`],
    },
  ]),
);
