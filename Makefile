# The two commands of the repo: `make dev` runs a local fleet, `make test` checks and
# tests everything. Wrangler never phones home and keeps its config inside the repo.
# `make image` builds the computerd image with no registry (images/), `make test-image`
# runs the container-runtime contract against it (CI runs both).

export WRANGLER_SEND_METRICS := false
export CLOUDFLARE_CF_FETCH_ENABLED := false
export XDG_CONFIG_HOME := $(CURDIR)/.config

.PHONY: deps deps-image test check lint dev image test-image bench bench-report bench-host bench-vfs bench-fs

deps:
	scripts/ensure-deps.sh

deps-image:
	scripts/ensure-deps.sh image

# The root filesystem needs root (debootstrap, id-mapped mounts); elsewhere commands run over the
# host's system folders. Built before the tests, whose fleets then find it cached.
rootfs: deps
	@if [ "$$(id -u)" = 0 ]; then images/rootfs/build-rootfs.sh >/dev/null; \
	else echo "rootfs: not root, so commands run over the host's system folders"; fi

test: rootfs
	npm run check
	npm test

check: deps
	npm run check

lint: deps
	npm run lint

dev: deps
	@if [ "$(CONTAINERS)" = docker ]; then scripts/ensure-deps.sh image; fi
	CONTAINERS=$(CONTAINERS) npm run dev

image: deps-image
	images/build-image.sh

test-image: image
	npm run test:image

# `make bench`: every fs-bench scenario (mount, tmpfs, disk, then the local fleet) with JSON,
# Markdown, SVG and HTML in bench/results/; QUICK=1 for one repetition of each.
bench: deps
	npm run bench -- $(if $(QUICK),--quick)

# `make bench-report`: one HTML page (latest run, trend over runs) from bench/results/fs-*.json,
# or from RUNS="a.json b.json".
bench-report: deps
	npm run bench:report -- $(RUNS)

# `make bench-host`: what ComputerFleet's benchmark input runs on the NVMe host — fs-bench in the
# computerd image under docker compose (bench/compose.yaml) — here on Debian's dockerd with
# /var/tmp as the disk (DISK_DIR=... for another); QUICK=1 for one repetition (make test-image).
bench-host: image
	npm run bench:host -- $(if $(QUICK),--quick) $(if $(DISK_DIR),--disk-dir "$(DISK_DIR)")

bench-vfs: deps
	npm run bench:vfs

bench-fs: deps
	npm run bench:fs
