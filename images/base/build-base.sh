#!/usr/bin/env bash
# Builds the Debian base image of images/computerd without any container registry: debootstrap
# (minbase) from the Debian mirror this machine's apt already uses, trimmed like Debian's slim
# images, then `docker import`ed under a tag derived from its inputs. The rootfs tarball is cached
# in images/.cache (git-ignored) and rebuilt only when this script, the suite or the mirror change.
# Prints the image tag on stdout. Needs root, debootstrap and a running docker engine.
# `build-base.sh --tarball` stops at the tarball and prints its path (no docker needed): the local
# root filesystem (images/rootfs/build-rootfs.sh) starts from it.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE=${DEBIAN_SUITE:-bookworm}
CACHE_DIR=${IMAGE_CACHE_DIR:-images/.cache}

# The Debian mirror: $DEBIAN_MIRROR, else the first Debian archive in apt's own sources (deb822
# `URIs:` or one-line `deb URL SUITE`), so the base comes from where this machine's packages come.
mirror_from_apt() {
  local file
  for file in /etc/apt/sources.list.d/*.sources; do
    [[ -f $file ]] || continue
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$file"
  done
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $file ]] || continue
    awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' "$file"
  done
}
MIRROR=${DEBIAN_MIRROR:-$(mirror_from_apt | head -n 1)}
if [[ -z $MIRROR ]]; then
  echo "build-base: no Debian mirror in apt's sources; set DEBIAN_MIRROR" >&2
  exit 1
fi

key=$( (cat "$0"; echo "$SUITE $MIRROR") | sha256sum | cut -c1-16)
TAG="computer/debian-base:$SUITE-$key"
TARBALL="$CACHE_DIR/debian-base-$SUITE-$key.tar"

if [[ ${1:-} != --tarball ]] && docker image inspect "$TAG" >/dev/null 2>&1; then
  echo "$TAG"
  exit 0
fi

if [[ ! -f $TARBALL ]]; then
  mkdir -p "$CACHE_DIR"
  rootfs=$(mktemp -d "$CACHE_DIR/rootfs.XXXXXX")
  trap 'rm -rf "$rootfs"' EXIT
  echo "build-base: debootstrap $SUITE from $MIRROR" >&2
  debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$rootfs" "$MIRROR" >&2

  # What Debian's slim images leave out, kept out of later installs too.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
CFG
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
CFG
  echo 'APT::Install-Recommends "false";' >"$rootfs/etc/apt/apt.conf.d/docker-no-recommends"
  # Updates and security fixes come from the same mirror layout as the suite.
  security=${MIRROR%/debian}/debian-security
  cat >"$rootfs/etc/apt/sources.list" <<LIST
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $security $SUITE-security main
LIST
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$rootfs"/usr/share/{man,info,locale}/* "$rootfs"/var/cache/apt/*.bin \
    "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log \
    "$rootfs"/tmp/* "$rootfs"/root/.bash_history
  : >"$rootfs/etc/machine-id"
  # Numeric owners and sorted names: the same packages give the same tarball layout.
  tar --numeric-owner --sort=name --xattrs -C "$rootfs" -cf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
fi

if [[ ${1:-} == --tarball ]]; then
  realpath "$TARBALL"
  exit 0
fi
echo "build-base: docker import $TARBALL as $TAG" >&2
docker import --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' "$TARBALL" "$TAG" >&2
echo "$TAG"
