# One image for every service; SERVICE picks which one runs (docker-compose.yml sets it).
#   docker build -t agent-orchestrator .
#   docker run -e SERVICE=gateway -e NATS_URL=... -e NATS_USER=gateway -e NATS_PASSWORD=... agent-orchestrator

# build: the exact lockfile (npm ci), then every TypeScript project (tsc -b), then only runtime packages
# Node.js 24: a supported LTS line (20 reached its end of life in April 2026)
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY shared/package.json shared/
COPY services/gateway/package.json services/gateway/
COPY services/orchestrator/package.json services/orchestrator/
COPY services/registry/package.json services/registry/
COPY services/tool-runner/package.json services/tool-runner/
# the test support workspace's manifest only (@agent-orchestrator/testing): npm ci wants every workspace the
# lockfile names; its modules are never copied, and the packages they use are root devDependencies, pruned below
COPY test/support/package.json test/support/
RUN npm ci --ignore-scripts
COPY shared shared
COPY services services
RUN npx tsc -b && npm prune --omit=dev --ignore-scripts

# run: compiled code and production dependencies only, as the unprivileged `node` user
FROM node:24-bookworm-slim
# run_script's and run_command's sandboxes (tool-runner): bubblewrap, the system python3 BMAD's scripts run on, and
# git, which a project's repository and the model's commands need (node is the image's own, in /usr/local). bwrap needs
# unprivileged user namespaces; where the container has none (docker's default seccomp profile blocks them),
# SCRIPTS=auto and COMMANDS=auto turn run_script and run_command off with one warning each at start.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap python3 git \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/shared/package.json shared/package.json
COPY --from=build /app/shared/dist shared/dist
COPY --from=build /app/services/registry/package.json services/registry/package.json
COPY --from=build /app/services/registry/dist services/registry/dist
COPY --from=build /app/services/tool-runner/package.json services/tool-runner/package.json
COPY --from=build /app/services/tool-runner/dist services/tool-runner/dist
COPY --from=build /app/services/orchestrator/package.json services/orchestrator/package.json
COPY --from=build /app/services/orchestrator/dist services/orchestrator/dist
COPY --from=build /app/services/gateway/package.json services/gateway/package.json
COPY --from=build /app/services/gateway/dist services/gateway/dist
COPY --from=build /app/services/gateway/web/dist services/gateway/web/dist
COPY --from=build /app/services/gateway/web/static services/gateway/web/static
# BMAD_ROOT's mount point; nothing in the image is written at run time (the files live in JetStream)
RUN mkdir -p /project
USER node
ENV SERVICE=gateway
# The gateway answers /healthz while it is connected to NATS. The other services have no port: their
# check is that the process lives (each exits non-zero when it cannot start; it reconnects to NATS forever).
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s \
  CMD if [ "$SERVICE" = gateway ]; then node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"; else kill -0 1; fi
# exec: node is PID 1 and gets SIGTERM itself, so it drains before exiting
CMD ["sh", "-c", "exec node services/$SERVICE/dist/main.js"]
