# syntax=docker/dockerfile:1
# The svc image: one image runs `svc bridge`, `svc ship` and `svc operator` (the Helm chart in charts/svc
# passes the subcommand as the container's args). Build: `docker build -t svc:0.1.0 .` (README, "Container
# image"). Node 24 LTS, not the issue's Node 20: Node 20 is past end of life (docs/DECISIONS.md). The agent
# CLIs are not in it: Dockerfile.agents layers them on this image (README, "Container image").
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
COPY server server
COPY ship ship
COPY bridge bridge
COPY cli cli
COPY operator operator
COPY web web
# One RUN for both (hadolint DL3059): `COPY web` comes before either, so a layer between them is never reused.
RUN npx tsc -p tsconfig.json \
 && npx vite build --config web/vite.config.ts

# Stage 2: the production dependencies alone.
FROM ${NODE_IMAGE} AS deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# Stage 3: the GitHub CLI (`gh`, for the agents' pull requests and issues). Debian bookworm's gh is 2.23
# (early 2023), so it is GitHub's release tarball at a pinned version, checked against that version's
# sha256 for the build's architecture (docs/DECISIONS.md, "ssh and gh in the svc image"). Node's fetch
# downloads it (through HTTPS_PROXY when the build passes one), so no curl is installed; only the binary
# and its license reach the runtime. A new version takes new checksums: --build-arg GH_VERSION,
# GH_SHA256_AMD64 and GH_SHA256_ARM64 together.
FROM ${NODE_IMAGE} AS gh
ARG GH_VERSION=2.89.0
ARG GH_SHA256_AMD64=d0422caade520530e76c1c558da47daebaa8e1203d6b7ff10ad7d6faba3490d8
ARG GH_SHA256_ARM64=9e64a623dfc242990aa5d9b3f507111149c4282f66b68eaad1dc79eeb13b9ce5
ARG TARGETARCH
WORKDIR /gh
RUN case "${TARGETARCH}" in \
      amd64) sha256="${GH_SHA256_AMD64}" ;; \
      arm64) sha256="${GH_SHA256_ARM64}" ;; \
      *) echo "no gh checksum for the architecture '${TARGETARCH}' (amd64 and arm64 only)" >&2; exit 1 ;; \
    esac \
 && NODE_USE_ENV_PROXY=1 node -e "const [url, file] = process.argv.slice(1); fetch(url).then((response) => { if (!response.ok) throw new Error(url + ': HTTP ' + response.status); return response.arrayBuffer(); }).then((body) => require('node:fs').writeFileSync(file, Buffer.from(body)));" \
      "https://github.com/cli/cli/releases/download/v${GH_VERSION}/gh_${GH_VERSION}_linux_${TARGETARCH}.tar.gz" gh.tar.gz \
 && printf '%s  gh.tar.gz\n' "${sha256}" > gh.tar.gz.sha256 \
 && sha256sum -c gh.tar.gz.sha256 \
 && tar -xzf gh.tar.gz --strip-components=1 \
 && rm gh.tar.gz gh.tar.gz.sha256

# Stage 4: the runtime.
FROM ${NODE_IMAGE}
ARG SVC_VERSION=0.1.0
LABEL org.opencontainers.image.title="svc" \
      org.opencontainers.image.description="Workspace orchestration for coding agents: svc bridge, svc ship, svc operator" \
      org.opencontainers.image.version="${SVC_VERSION}" \
      org.opencontainers.image.licenses="MIT"
# git and tmux for the ship's workspaces and sessions, ca-certificates for HTTPS remotes, openssh-client for
# `git@…` remotes (the agents' git and gh use ssh), tini as PID 1 (forwards SIGTERM, reaps the tmux
# server's and git's orphans). C.UTF-8 ships with Debian's libc: tmux needs a UTF-8 locale or it draws
# wide characters as `__`. Versions not pinned (hadolint DL3008): Debian's archive serves only the newest
# version of a package in each suite, so a pinned one stops installing at the next security update; the
# base image's tag pins the release (bookworm).
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends git tmux ca-certificates openssh-client tini \
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
COPY --from=gh /gh/bin/gh /usr/local/bin/gh
COPY --from=gh /gh/LICENSE /usr/share/doc/gh/LICENSE
RUN ln -s /app/bin/svc.js /usr/local/bin/svc
USER 10001:10001
EXPOSE 4700 4800 8081 9464
ENTRYPOINT ["/usr/bin/tini", "--", "svc"]
CMD ["--help"]
