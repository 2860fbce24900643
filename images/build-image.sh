#!/usr/bin/env bash
# `make image`: builds images/computerd/Dockerfile as computer/computerd:<tag> (and :latest) with no
# container registry: starts Debian's dockerd when no engine answers (images/docker-engine.sh),
# builds or reuses the debootstrap base (images/base/build-base.sh) and passes it as BASE_IMAGE.
# The tag is a hash of everything the image is built from, so an unchanged tree is not rebuilt.
# Prints the image reference on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

images/docker-engine.sh >&2
base=$(images/base/build-base.sh)

# The image's inputs: the base, the Dockerfile and the context filter, then everything the filter
# lets in (its `!` lines, the same list docker sends): files by content (tests aside, which it
# keeps out), installed packages by version — npm's `npm` package, the image's npm, among them —
# and the Node binary by its version.
inputs_hash() {
  {
    echo "$base"
    sha256sum images/computerd/Dockerfile .dockerignore
    local path
    for path in $(grep -E '^!' .dockerignore | cut -c2-); do
      case $path in
        node_modules/node/bin/node) node_modules/node/bin/node --version ;;
        node_modules/*) echo "$path $(node -p "require('./$path/package.json').version")" ;;
        *) git ls-files -co --exclude-standard -- "$path" | grep -v -E '\.test\.ts$' | sort | xargs -r sha256sum ;;
      esac
    done
  } | sha256sum | cut -c1-16
}
tag="computer/computerd:$(inputs_hash)"

if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "image: $tag is up to date" >&2
else
  echo "image: building $tag from $base" >&2
  start=$(date +%s)
  # Host networking: apt reaches the Debian mirror without a bridge or NAT on this machine.
  docker build --network host --build-arg "BASE_IMAGE=$base" \
    -f images/computerd/Dockerfile -t "$tag" . >&2
  echo "image: built $tag in $(($(date +%s) - start)) s" >&2
fi
docker tag "$tag" computer/computerd:latest
echo "image: $(docker image inspect -f '{{.Size}}' "$tag" | awk '{ printf "%.0f MB", $1 / 1e6 }')" >&2
echo "$tag"
