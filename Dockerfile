# pitwall's production image: the compiled worker, production dependencies only, run as the
# unprivileged `node` user. Build: docker build -t pitwall .   Run: see compose.yaml and README.md (The worker).
#
# The Node version is .nvmrc's; keep the two in step.
ARG NODE_VERSION=20.20.2

# Stage 1: the package, as `npm pack` makes it for anyone (its prepack compiles src/ to dist/,
# which needs the dev dependencies: TypeScript).
# `npm install` with the committed lockfile, as .ci/run does: `npm ci` refuses this lockfile for
# lacking optional platform binaries the registry does not serve; the versions resolved are the same.
FROM node:${NODE_VERSION}-bookworm-slim AS pack
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json README.md CHANGELOG.md ./
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
COPY docs ./docs
RUN npm pack --pack-destination /pkg && mv /pkg/pitwall-*.tgz /pkg/pitwall.tgz

# Stage 2: the packed package unpacked, with its production dependencies at the lockfile's
# versions (the tarball carries no lockfile; installed bare, it would resolve afresh).
FROM node:${NODE_VERSION}-bookworm-slim AS install
WORKDIR /app
COPY --from=pack /pkg/pitwall.tgz /tmp/pitwall.tgz
COPY --from=pack /build/package-lock.json ./
RUN tar -xzf /tmp/pitwall.tgz --strip-components=1 --no-same-owner && rm /tmp/pitwall.tgz
RUN npm install --omit=dev --no-audit --no-fund

# Stage 3: what runs: the installed package alone (no src/, no TypeScript, no tsx), without npm's cache.
FROM node:${NODE_VERSION}-bookworm-slim
# The V8 heap cap: without one, V8 sizes its heap from the host's memory and lets the old
# generation grow to about four times what is live between collections. A full sync of the
# benchmark's large world (1.2 million result rows, concurrency 8, no rate limit) keeps under
# 50 MB live, yet peaked at ~310 MB resident uncapped; capped at 512 MB, at ~190 MB, for ~12%
# more CPU. Raise it if a sync ever runs out of heap (a far higher PITWALL_CONCURRENCY holds
# more responses at once).
#
# PITWALL_HTTP_HOST=0.0.0.0: the worker's endpoint (PITWALL_HTTP_PORT) listens on 127.0.0.1 by
# default, which inside a container is the container's own loopback: a published port or another
# container could not reach it. When the port is published beyond the host, set
# PITWALL_HTTP_TOKEN too (docs/observe.md: What the endpoint exposes).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-old-space-size=512 \
    PITWALL_DATA_DIR=/data \
    PITWALL_HTTP_HOST=0.0.0.0
WORKDIR /app
COPY --from=install /app ./
RUN mkdir -p /data && chown node:node /data
USER node
# The worker stops gracefully on SIGTERM (the default stop signal) within PITWALL_SHUTDOWN_TIMEOUT_MS.
ENTRYPOINT ["node", "bin/pitwall.js"]
CMD ["worker"]
