# syntax=docker/dockerfile:1
#
# One image for every app of the suite (gateway, credits, verifier, file-jobs, webhooks) and the
# admin CLI. The entrypoint is `node`; the command picks the app:
#
#   docker run IMAGE                                   -> gateway (dist/apps/gateway/src/main.js)
#   docker run IMAGE dist/apps/verifier/src/main.js    -> verifier
#   docker run IMAGE dist/tools/admin/main.js create-account --name demo --credits 1000
#
# Build: docker build -t emailverify:dev .
#
# The install is `npm ci` from the committed package-lock.json, which holds every platform's optional
# packages, so the bundles hold exactly the locked versions on any build machine. No install script runs
# (--ignore-scripts): nothing in the image needs one. test/image/image-build.e2e-spec.ts runs the install and
# build steps below on a fresh copy of the repository, so `npm test` fails when they would.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: all dependencies; swc into dist/, each app bundled by esbuild, the web console with Vite ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NX_DAEMON=false \
    NX_NO_CLOUD=true
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# The build also makes the web console's static files (dist/apps/console), which the gateway serves at /console.
# Then the runtime's files are gathered into runtime/ (tools/dev/runtime-files.mjs): the bundled entries of the
# apps and the admin CLI, which hold every package they use, their source maps, the console, and of node_modules
# only what the bundles leave to Node.js (swagger-ui-dist). No other installed package goes into the image.
RUN npm run build \
 && test -f dist/apps/gateway/src/main.js \
 && test -f dist/apps/console/index.html \
 && node tools/dev/runtime-files.mjs runtime

# ---- runtime ----------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
LABEL org.opencontainers.image.title="emailverify" \
      org.opencontainers.image.description="E-mail verification service: gateway, credits, verifier, file-jobs, webhooks"
ENV NODE_ENV=production
WORKDIR /app
# Files stay owned by root, so the app user can read but not change them; the app never writes to /app,
# so the container also runs with a read-only root file system (Helm sets readOnlyRootFilesystem).
COPY --from=build /app/runtime ./
# The `node` user of the base image (uid/gid 1000); numeric so Kubernetes can verify runAsNonRoot.
USER 1000:1000
# Gateway listens on PORT (3000); the NATS services serve /health and /metrics on HTTP_PORT
# (credits 3101, verifier 3102, file-jobs 3103, webhooks 3104).
EXPOSE 3000 3101 3102 3103 3104
# The slim image has no curl: probe with node's fetch on whichever port this app serves.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||process.env.PORT||3000)+'/health/ready',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The V8 flags of tools/dev/node-flags.json "apps" (tools/dev/node-flags.spec.ts fails when this copy differs): a 32 MiB young generation (fewer scavenges per address) and
# an old generation of at most 384 MiB (collected before garbage piles up; no app holds that much). The gateway
# runs with an 8 MiB young generation instead ("gateway"): compose and Helm set its NODE_OPTIONS.
ENV NODE_OPTIONS="--max-semi-space-size=32 --max-old-space-size=384"
ENTRYPOINT ["node"]
CMD ["dist/apps/gateway/src/main.js"]
