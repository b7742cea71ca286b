# rta's image: the compiled binary on a base that holds glibc and nothing else to run (no shell, no package manager).
# docs/containers.md says how to build it, run it and share it; test/image/ holds this file to what that page says.
#
#   docker build -t rta .
#   docker run -d --init -p 127.0.0.1:8722:8722 -v rta-state:/var/lib/rta -v "$PWD":/work:ro rta

# The build stage runs the README's build, npm ci then npm run build, which leaves the binary at dist/rta. It is
# Debian 12 (bookworm), the release the final stage's base is made from, so the binary is linked against the glibc it
# runs on (2.36). Pin it by digest for a build that is the same next month: node:22-bookworm-slim@sha256:<digest>.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci
COPY bunfig.toml tsconfig.json ./
COPY scripts scripts
COPY plugins plugins
COPY src src
RUN npm run build
# The state volume's directories, made here because the final stage has no shell to make them: a volume mounted over
# /var/lib/rta starts as a copy of them, owned by the server's user and closed to everyone else.
RUN mkdir -p /rootfs/var/lib/rta/data /rootfs/var/lib/rta/config && chmod 0700 /rootfs/var/lib/rta/data /rootfs/var/lib/rta/config

# The final stage: distroless cc for Debian 12 holds glibc, libgcc, CA certificates, tzdata and an /etc/passwd whose
# nonroot user is 65532; it has no shell. Pin it by digest as well: gcr.io/distroless/cc-debian12:nonroot@sha256:<digest>.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/dist/rta /usr/local/bin/rta
COPY --from=build --chown=65532:65532 /rootfs/var/lib/rta /var/lib/rta
ENV PATH=/usr/local/bin:/usr/bin:/bin
# Everything rta keeps: grants, tokens (their hashes), locks, the record and its key in data; config.toml, policy.toml
# and the kv identity in config. One volume keeps both across containers.
ENV RTA_DATA_DIR=/var/lib/rta/data RTA_CONFIG_DIR=/var/lib/rta/config
VOLUME ["/var/lib/rta"]
# With no --root and no roots in config.toml, a server serves the directory it starts in: mount there what agents may
# touch. Left empty, it is root's and cannot be written.
WORKDIR /work
USER 65532:65532
EXPOSE 8722
# No HEALTHCHECK: it would need a shell or curl in the image, and there is neither. /healthz (alive) and /readyz
# (ready, the store reachable) answer without a token: point the orchestrator's probes at them.
ENTRYPOINT ["rta"]
CMD ["mcp", "serve", "--http", "0.0.0.0:8722"]
