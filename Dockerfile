# syntax=docker/dockerfile:1
# The svc image: one image runs `svc bridge`, `svc ship` and `svc operator` (the Helm chart in charts/svc
# passes the subcommand as the container's args). Build: `docker build -t svc:0.1.0 .` (README, "Container
# image"). Node 24 LTS, not the issue's Node 20: Node 20 is past end of life (docs/DECISIONS.md).
ARG NODE_IMAGE=node:24-bookworm-slim

# Stage 1: compile the TypeScript with the dev dependencies (tsc), and build the GUI (web/ → dist/web, which
# the bridge serves at /ui/) with Vite.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No dependency needs an install script; `prepare` (tsc) runs below, once the sources are here.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY protocol protocol
COPY ship ship
COPY bridge bridge
COPY cli cli
COPY operator operator
COPY web web
RUN npx tsc -p tsconfig.json
RUN npx vite build --config web/vite.config.ts

# Stage 2: the production dependencies alone.
FROM ${NODE_IMAGE} AS deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Stage 3: the runtime.
FROM ${NODE_IMAGE}
ARG SVC_VERSION=0.1.0
LABEL org.opencontainers.image.title="svc" \
      org.opencontainers.image.description="Workspace orchestration for coding agents: svc bridge, svc ship, svc operator" \
      org.opencontainers.image.version="${SVC_VERSION}" \
      org.opencontainers.image.licenses="MIT"
# git and tmux for the ship's workspaces and sessions, ca-certificates for HTTPS remotes, tini as PID 1
# (forwards SIGTERM, reaps the tmux server's and git's orphans). C.UTF-8 ships with Debian's libc: tmux
# needs a UTF-8 locale or it draws wide characters as `__`.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git tmux ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
ENV LANG=C.UTF-8 \
    LC_ALL=C.UTF-8 \
    NODE_ENV=production \
    HOME=/home/svc
# A fixed UID/GID (the chart's securityContext runs as 10001), a login shell for workspace sessions, and
# the directories the chart mounts volumes on, owned by that user.
RUN groupadd --gid 10001 svc \
 && useradd --uid 10001 --gid 10001 --home-dir /home/svc --create-home --shell /bin/bash svc \
 && install -d -o 10001 -g 10001 -m 0700 /var/lib/svc /var/lib/svc/bridge /var/lib/svc/fleet
WORKDIR /app
COPY --from=deps /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY package.json ./
COPY bin bin
RUN ln -s /app/bin/svc.js /usr/local/bin/svc
USER 10001:10001
EXPOSE 4700 4800 8081 9464
ENTRYPOINT ["/usr/bin/tini", "--", "svc"]
CMD ["--help"]
