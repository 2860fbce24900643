#!/usr/bin/env bash
# Builds the FUSE 3 addon (build/Release/fuse3.node) with node-gyp. It uses plain N-API
# (NAPI_VERSION 8, ABI-stable), so any Node's headers do: the system's /usr/include/node
# when present (no download), otherwise node-gyp's own. Needs libfuse3-dev and pkg-config.
# Also builds build/Release/computerd-userns (userns.c: the user namespace and idmapped mount of
# the container sandbox) and build/Release/computerd-enter (enter.c: a command in a computer's
# held sandbox, exec/held-sandbox.ts) and build/Release/computerd-spawner (spawner.c: forks the
# daemon's commands, exec/spawner.ts), plain programs: gcc only.
set -euo pipefail
cd "$(dirname "$0")"
nodedir=()
if [[ -f /usr/include/node/node_api.h && -f /usr/include/node/common.gypi ]]; then nodedir=(--nodedir=/usr); fi
node-gyp rebuild "${nodedir[@]}" "$@"
gcc -O2 -Wall -Wextra -Werror -o build/Release/computerd-userns userns.c
# Static: a command enters through it, and its exec then skips the dynamic loader (~2 ms here).
gcc -O2 -Wall -Wextra -Werror -static -o build/Release/computerd-enter enter-main.c enter.c warm-entry.c
gcc -O2 -Wall -Wextra -Werror -o build/Release/computerd-spawner spawner.c spawner-warm.c enter.c warm-entry.c
