# Gw's image for machines with a container engine: `docker build -t ghcr.io/gw-dev/proxy:0.1.0 .`
# (tag the same image as ghcr.io/gw-dev/controller too). `make image` builds the same layout without a
# daemon (scripts/image/build.sh); docs/install.md says why one image serves both roles.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY proto proto
COPY scripts/build-ui.mjs scripts/
RUN npx tsc -p tsconfig.build.json && node scripts/build-ui.mjs && find dist -name '*.map' -delete

FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /src/dist dist
COPY package.json ./
COPY bin bin
COPY proto proto
# 65532: a numeric non-root user, as the proxy pods the deployer renders (runAsNonRoot) require.
USER 65532:65532
EXPOSE 9978 9092 9093 15020 15021
ENTRYPOINT ["node", "/app/bin/gw.js"]
CMD ["--help"]
