# syntax=docker/dockerfile:1
# One image for the worker and the emulator: docker-compose.yml picks the command per service (the
# default runs the worker). Debian slim, not alpine: the worker's native @temporalio/core-bridge and
# the bundler's @swc/core ship prebuilt binaries for glibc only.

# Build: all dependencies (TypeScript is a dev dependency), then tsc into lib/ as `npm run build` does.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# The manifests alone first (the workspaces' too: npm ci installs them), so the dependency layer is
# reused until they change.
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
COPY packages/emulator/package.json ./packages/emulator/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/client/tsconfig.build.json ./packages/client/
COPY packages/emulator/tsconfig.build.json ./packages/emulator/
COPY src ./src
COPY packages/client/src ./packages/client/src
COPY packages/emulator/src ./packages/emulator/src
RUN npm run build

# Runtime: production dependencies and the compiled code only.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
COPY packages/emulator/package.json ./packages/emulator/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/lib ./lib
COPY --from=build /app/packages/client/lib ./packages/client/lib
COPY --from=build /app/packages/emulator/lib ./packages/emulator/lib
# The artifacts volume's mount point, owned by the unprivileged user so a new named volume is too.
RUN mkdir -p /data/artifacts && chown node:node /data/artifacts
USER node
# Emulator HTTP; worker Prometheus metrics (when METRICS_PORT is set).
EXPOSE 8787 9464
CMD ["node", "lib/src/worker.js"]
