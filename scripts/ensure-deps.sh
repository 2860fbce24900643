#!/usr/bin/env bash
# Installs what the repo needs and is missing: Debian packages from APT_PACKAGES (apt-get
# update runs once, only if one is missing) and node_modules (npm ci when absent or older
# than package-lock.json). Safe to run repeatedly; does nothing when all is in place.
# `ensure-deps.sh image` also installs what `make image` needs: Debian's docker engine.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the build or tests need (the e2e quick start runs curl; gcc, libfuse3-dev and
# pkg-config build computerd's FUSE 3 addon; the conformance suite compiles a C helper (gcc,
# libc6-dev), runs python3 and git, and switches users with setpriv (util-linux); the pdf-report
# example's test reads its PDF with pdftotext (poppler-utils); bench's report test opens the HTML
# report in headless chromium; the CLI's test loads its zsh completion in zsh).
APT_PACKAGES=(curl fuse3 bubblewrap gcc libc6-dev libfuse3-dev pkg-config python3 git util-linux poppler-utils chromium zsh)
# As root, `make test` and `make dev` build the image's root filesystem (images/rootfs) from a
# debootstrap base, so root needs debootstrap for them too, not only for the image.
if [[ $(id -u) -eq 0 ]]; then APT_PACKAGES+=(debootstrap); fi
# The image also needs Debian's docker engine; `make bench-host` runs the image under docker
# compose (Debian ships compose as the standalone docker-compose).
if [[ ${1:-} == image ]]; then APT_PACKAGES+=(docker.io docker-compose); fi

missing=()
for pkg in ${APT_PACKAGES[@]+"${APT_PACKAGES[@]}"}; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]} > 0)); then
  echo "ensure-deps: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

# npm checks every package's "engines" against the Node it runs under, and the system Node may be
# older than the >= 22 most packages need: run npm under the pinned Node (package.json's `node`
# devDependency) so a fresh install prints no EBADENGINE warning — the installed copy when there
# is one, else a one-off copy through npm exec (from the npm cache after the first time).
# Install scripts run only where package.json's allowScripts approves them: `node` (it installs
# the Node binary). The others are denied because nothing needs them: esbuild and workerd find
# their binaries in their per-platform optional packages, and node-liblzma (xz for just-bash on
# Node) is optional and unused (just-bash runs in workerd).
pinned_node=$(node -p 'require("./package.json").devDependencies.node')
npm_cli="$(npm root -g)/npm/bin/npm-cli.js"
run_npm() {
  if [[ -x node_modules/node/bin/node && $(node_modules/node/bin/node --version) == "v$pinned_node" && -f $npm_cli ]]; then
    node_modules/node/bin/node "$npm_cli" "$@"
  elif [[ $(node -p 'Number(process.versions.node.split(".")[0]) >= 22') == true || ! -f $npm_cli ]]; then
    npm "$@"
  else
    npm exec --yes --package="node@$pinned_node" -- node "$npm_cli" "$@"
  fi
}

# npm writes node_modules/.package-lock.json after every install; older than the lock = stale.
# npm ci can refuse a lock that lacks an optional dependency the registry does not serve
# (vite's napi-windows-process-start-time here); npm install then installs the same lock.
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "ensure-deps: npm ci"
  if ! ci_log=$(run_npm ci --no-audit --no-fund 2>&1); then
    echo "$ci_log" | grep -E "^npm error (Missing|Invalid)" || true
    echo "ensure-deps: npm ci refused the lock file; running npm install instead"
    run_npm install --no-audit --no-fund
  fi
fi

# @computer/sdk's published build (sdk/dist: JavaScript and .d.ts), what the `computer` bin and
# Node scripts outside vitest run; rebuilt when a source is newer (sdk/scripts/build.ts decides).
# npm links a bin only when its file exists, so a fresh install links `computer` after the build.
pinned=node_modules/node/bin/node
[[ -x $pinned ]] || pinned=node
"$pinned" sdk/scripts/build.ts
if [[ ! -e node_modules/.bin/computer ]]; then
  echo "ensure-deps: linking the computer bin"
  run_npm rebuild @computer/sdk --ignore-scripts --no-audit --no-fund >/dev/null
fi

# computerd's FUSE 3 addon, the mount backend of computerd serve and computerd host (without
# it they refuse to mount unless --mount-backend/--mount none is given, and the FUSE tests fail).
# Rebuilt when missing or older than any of its sources.
addon=computerd/native/build/Release/fuse3.node
helper=computerd/native/build/Release/computerd-userns
enter=computerd/native/build/Release/computerd-enter
spawner=computerd/native/build/Release/computerd-spawner
# True when any source (every .c and .h there, and binding.gyp: the addon is several files) is
# newer than any of the four.
native_stale() {
  local built source
  for built in "$addon" "$helper" "$enter" "$spawner"; do
    [[ -f $built ]] || return 0
    for source in computerd/native/*.c computerd/native/*.h computerd/native/binding.gyp; do
      [[ $source -nt $built ]] && return 0
    done
  done
  return 1
}
if native_stale; then
  echo "ensure-deps: building computerd/native"
  if ! build_log=$(npm run build:native -w computerd 2>&1); then
    echo "$build_log" | tail -20
    echo "ensure-deps: WARNING: the FUSE 3 addon did not build; the default mount backend (fuse3) is unavailable"
  fi
fi
