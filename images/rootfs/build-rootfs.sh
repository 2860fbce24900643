#!/usr/bin/env bash
# Builds the computerd image's root filesystem as a folder, with no container engine, for
# `computerd host` (make dev) to run commands over: the debootstrap base of images/base (the
# same tarball as the image's BASE_IMAGE), the Debian packages of images/computerd/packages.txt
# (the list the Dockerfile installs), Node and npm from node_modules/node and node_modules/npm
# (root devDependencies: the image's Node and npm, one pinned version each). Built once and
# cached as images/.cache/rootfs-<hash of its inputs>; prints that folder on stdout, progress
# with elapsed seconds on stderr. Needs root, debootstrap and bubblewrap (for apt-get inside the
# new root) and the Debian mirror. `build-rootfs.sh --path` prints the folder without building it.
set -euo pipefail
cd "$(dirname "$0")/../.."

CACHE_DIR=${IMAGE_CACHE_DIR:-images/.cache}
PACKAGES=images/computerd/packages.txt
started=$(date +%s)
say() { echo "rootfs: [$(($(date +%s) - started)) s] $*" >&2; }

packages() { grep -v -E '^\s*(#|$)' "$PACKAGES"; }
npm_version() { node_modules/node/bin/node -p 'require("./node_modules/npm/package.json").version'; }

base=$(images/base/build-base.sh --tarball)
key=$({
  cat "$0" "$PACKAGES"
  echo "$(basename "$base") npm@$(npm_version)"
  sha256sum node_modules/node/bin/node
} | sha256sum | cut -c1-16)
mkdir -p "$CACHE_DIR"
ROOTFS=$(realpath "$CACHE_DIR")/rootfs-$key

if [[ ${1:-} == --path || -f $ROOTFS/.computer-rootfs ]]; then
  echo "$ROOTFS"
  exit 0
fi

say "building $ROOTFS (first run only; later runs reuse it)"
work=$(mktemp -d "$CACHE_DIR/rootfs-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
say "unpacking the Debian base $(basename "$base")"
tar --numeric-owner --xattrs -C "$work" -xf "$base"

# What the slim base leaves out that groff (pdfroff) cannot run without (as the Dockerfile).
echo 'path-include /usr/share/groff/*' >"$work/etc/dpkg/dpkg.cfg.d/zz-computer-groff"

# apt-get inside the new root: bubblewrap as root (no user namespace), the host's network.
in_root() {
  bwrap --bind "$work" / --dev /dev --proc /proc --tmpfs /tmp --ro-bind /etc/resolv.conf /etc/resolv.conf \
    --unshare-pid --unshare-ipc --unshare-uts --die-with-parent --setenv DEBIAN_FRONTEND noninteractive \
    --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --setenv HOME /root -- "$@"
}
say "apt-get update"
in_root apt-get -q update >"$work.apt.log" 2>&1 || { tail -20 "$work.apt.log" >&2; exit 1; }
count=$(packages | wc -l)
say "apt-get install: $count packages of $PACKAGES and their dependencies"
# One progress line per package set up (dpkg prints them as it goes).
in_root apt-get -q install -y --no-install-recommends $(packages) 2>&1 | tee -a "$work.apt.log" |
  while IFS= read -r line; do
    case $line in
      "Setting up "*) say "${line%% (*}" ;;
      E:* | "Err:"*) echo "$line" >&2 ;;
    esac
  done
for pkg in $(packages); do
  in_root dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || {
    tail -30 "$work.apt.log" >&2
    say "apt-get did not install $pkg"
    exit 1
  }
done
rm -f "$work.apt.log"

# Where the image puts them too (images/computerd/Dockerfile).
say "Node $(node_modules/node/bin/node --version) and npm $(npm_version) into /usr/local"
install -m 0755 node_modules/node/bin/node "$work/usr/local/bin/node"
mkdir -p "$work/usr/local/lib/node_modules"
cp -a node_modules/npm "$work/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/usr/local/bin/npx"
in_root sh -c 'node --version && npm --version && pandoc --version | head -n 1' | while IFS= read -r line; do
  say "  $line"
done

rm -rf "$work"/var/lib/apt/lists/* "$work"/var/cache/apt/*.bin "$work"/var/cache/apt/archives/*.deb \
  "$work"/tmp/* "$work"/var/log/*.log "$work"/root/.npm
mkdir -p "$work/workspace"
: >"$work/etc/machine-id"
echo "rootfs-$key" >"$work/.computer-rootfs"
rm -rf "$ROOTFS"
mv "$work" "$ROOTFS"
trap - EXIT
# Earlier builds go, unless a computer's root is still mounted from one (a running make dev):
# mountinfo's 4th field is the mounted folder's path within its filesystem.
for old in "$CACHE_DIR"/rootfs-*; do
  name=$(basename "$old")
  [[ -d $old && $name != "rootfs-$key" && $name != rootfs-build.* ]] || continue
  if awk -v n="$name" '$4 ~ ("/" n "(/|$)") { found = 1 } END { exit !found }' /proc/self/mountinfo; then
    say "keeping $name: a computer's root is mounted from it"
  else
    rm -rf "$old"
    say "removed the earlier build $name"
  fi
done
say "built in $(($(date +%s) - started)) s: $(du -sh --apparent-size "$ROOTFS" | cut -f1)"
echo "$ROOTFS"
