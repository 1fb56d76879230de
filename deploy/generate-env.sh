#!/bin/sh
# Prints the secrets docker compose reads from .env: a random password for each NATS user of
# deploy/nats/nats-server.conf, and one gateway token. Run once:
#
#   deploy/generate-env.sh > .env && chmod 600 .env
#
# nats-server parses a password variable's value as a config value, so each password starts with a
# letter and holds only letters and digits (a number-like value would not be read as a string).
set -eu

random() {
  printf 'n%s' "$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
}

for user in REGISTRY TOOL_RUNNER ORCHESTRATOR GATEWAY ADMIN; do
  echo "NATS_${user}_PASSWORD=$(random)"
done
# the servers of docker-compose.cluster.yml authenticate their routes to each other with it
echo "NATS_ROUTE_PASSWORD=$(random)"
# user:token pairs for the gateway's bearer tokens; add more users the same way, comma-separated
echo "AUTH_TOKENS=admin:$(random)"
