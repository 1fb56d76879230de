# One image for every service; SERVICE picks which one runs.
#   docker build -t agent-orchestrator .
#   docker run -e SERVICE=gateway agent-orchestrator
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY shared/package.json shared/
COPY services/gateway/package.json services/gateway/
COPY services/orchestrator/package.json services/orchestrator/
COPY services/registry/package.json services/registry/
COPY services/tool-runner/package.json services/tool-runner/
RUN npm ci --ignore-scripts
COPY shared shared
COPY services services
RUN npx tsc -b && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules node_modules
COPY --from=build --chown=node:node /app/shared/package.json shared/package.json
COPY --from=build --chown=node:node /app/shared/dist shared/dist
COPY --from=build --chown=node:node /app/services services
USER node
ENV SERVICE=gateway
# The gateway answers /healthz; the other services are checked by their NATS connection (a live process).
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s \
  CMD if [ "$SERVICE" = gateway ]; then node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"; else kill -0 1; fi
CMD ["sh", "-c", "exec node services/$SERVICE/dist/main.js"]
