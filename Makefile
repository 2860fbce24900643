# The two commands of the repo: `make dev` runs a local fleet, `make test` checks and
# tests everything. Wrangler never phones home and keeps its config inside the repo.

export WRANGLER_SEND_METRICS := false
export CLOUDFLARE_CF_FETCH_ENABLED := false
export XDG_CONFIG_HOME := $(CURDIR)/.config

.PHONY: deps test check lint dev bench-vfs bench-fs

deps:
	scripts/ensure-deps.sh

test: deps
	npm run check
	npm test

check: deps
	npm run check

lint: deps
	npm run lint

dev: deps
	npm run dev

bench-vfs: deps
	npm run bench:vfs

bench-fs: deps
	npm run bench:fs
