# pitwall's production image: the compiled worker, production dependencies only, run as the
# unprivileged `node` user. Build: docker build -t pitwall .   Run: see compose.yaml and README.md (The worker).
#
# The Node version is .nvmrc's; keep the two in step.
ARG NODE_VERSION=20.20.2

# Stage 1: compile src/ to dist/ (needs the dev dependencies: TypeScript).
# `npm install` with the committed lockfile, as .ci/run does: `npm ci` refuses this lockfile for
# lacking optional platform binaries the registry does not serve; the versions resolved are the same.
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Stage 2: production dependencies only (no TypeScript, vitest, drizzle-kit, pino-pretty).
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund

# Stage 3: what runs. bin/pitwall.js loads dist/ when it is present, so tsx is never used here.
FROM node:${NODE_VERSION}-bookworm-slim
# The V8 heap cap: without one, V8 sizes its heap from the host's memory and lets the old
# generation grow to about four times what is live between collections. A full sync of the
# benchmark's large world (1.2 million result rows, concurrency 8, no rate limit) keeps under
# 50 MB live, yet peaked at ~310 MB resident uncapped; capped at 512 MB, at ~190 MB, for ~12%
# more CPU. Raise it if a sync ever runs out of heap (a far higher PITWALL_CONCURRENCY holds
# more responses at once).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-old-space-size=512 \
    PITWALL_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
# The worker stops gracefully on SIGTERM (the default stop signal) within PITWALL_SHUTDOWN_TIMEOUT_MS.
ENTRYPOINT ["node", "bin/pitwall.js"]
CMD ["worker"]
