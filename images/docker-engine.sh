#!/usr/bin/env bash
# Makes sure a docker engine answers: when none does, starts Debian's dockerd (apt `docker.io`,
# installed by `scripts/ensure-deps.sh image`) in the background with no bridge network, no
# iptables rules and no NAT: builds and the image test use host networking only. Its log and pid
# go to images/.cache/dockerd.{log,pid}; stop it with `kill "$(cat images/.cache/dockerd.pid)"`.
set -euo pipefail
cd "$(dirname "$0")/.."

if docker info >/dev/null 2>&1; then exit 0; fi
if ! command -v dockerd >/dev/null; then
  echo "docker-engine: no docker engine answers and dockerd is not installed (scripts/ensure-deps.sh image)" >&2
  exit 1
fi
mkdir -p images/.cache
echo "docker-engine: starting dockerd (log: images/.cache/dockerd.log)" >&2
setsid dockerd --bridge=none --iptables=false --ip-masq=false --ip-forward=false \
  >images/.cache/dockerd.log 2>&1 </dev/null &
echo $! >images/.cache/dockerd.pid
for _ in $(seq 1 120); do
  if docker info >/dev/null 2>&1; then exit 0; fi
  sleep 0.5
done
echo "docker-engine: dockerd did not answer within 60 s:" >&2
tail -n 20 images/.cache/dockerd.log >&2
exit 1
