# The two commands of the README: `make dev` and `make test`. Everything they need is
# installed here when missing, and skipped when already present at the right version.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

export CI := true
export WRANGLER_SEND_METRICS := false
export CLOUDFLARE_CF_FETCH_ENABLED := false
export PATH := $(HOME)/.cargo/bin:$(PATH)

# wasm-bindgen-cli must match the wasm-bindgen crate version pinned in Cargo.lock.
WASM_BINDGEN_VERSION := $(shell sed -n '/^name = "wasm-bindgen"$$/{n;s/version = "\(.*\)"/\1/p;}' Cargo.lock)
WORKER_BUILD_VERSION := 0.8.7
WRANGLER := node_modules/.bin/wrangler
DEV_STATE := .wrangler/state
DEV_PORT ?= 8787
CHROMIUM := /usr/bin/chromium

.PHONY: dev test fuzz create-organization import-organization bench bench-render build setup toolchain migrate-dev clean deploy smoke restore-point restore dry-run deny

## Serve the development organization on 127.0.0.1:$(DEV_PORT) (data kept in $(DEV_STATE)).
dev: build migrate-dev
	$(WRANGLER) dev --ip 127.0.0.1 --port $(DEV_PORT) --persist-to $(DEV_STATE) --show-interactive-dev-session=false

## Build, then run every test target in parallel lanes, each on a private server with fresh
## state (scripts/run-tests.sh; TEST_LANES sets their number).
test: build .venv-test/.installed .venv-test/.bots-installed .venv-test/.tus-installed tests/js/node_modules/.installed .venv-zterm/.installed $(CHROMIUM)
	scripts/run-tests.sh

# Debian's Chromium, which the web client's browser tests drive (playwright-core, from
# web/package-lock.json, never downloads a browser).
$(CHROMIUM):
	(apt-get update -qq && apt-get install -y -qq chromium) || (sudo apt-get update -qq && sudo apt-get install -y -qq chromium)

# The official Python client, for tests/python_client.rs.
.venv-test/.installed:
	python3 -m venv .venv-test
	.venv-test/bin/pip install --quiet zulip==0.9.1
	touch $@

## Fuzz every operation of Zulip's OpenAPI file (schemathesis) against a private server,
## as a member and as a guest; fails on a 5xx, an undocumented success or lost state.
fuzz: build .venv-fuzz/.installed
	scripts/with-test-server.sh --log-level warn .venv-fuzz/bin/python tests/fuzz/run.py

.venv-fuzz/.installed: tests/fuzz/requirements.txt
	python3 -m venv .venv-fuzz
	.venv-fuzz/bin/pip install --quiet -r tests/fuzz/requirements.txt
	touch $@

## Create an organization and its owner on a running server; prints the owner's login:
## SERVER_ADMIN_SECRET=... make create-organization SERVER_URL=https://chat.example.com \
##   STRING_ID=acme NAME="Acme" OWNER_EMAIL=owner@acme.com OWNER_NAME="Ada Owner"
SERVER_URL ?= http://127.0.0.1:$(DEV_PORT)
create-organization:
	SERVER_URL="$(SERVER_URL)" scripts/create-organization.sh "$(STRING_ID)" "$(NAME)" "$(OWNER_EMAIL)" "$(OWNER_NAME)"
## Import a Zulip export archive (.tar.gz or its folder) as the new organization STRING_ID
## (resumable: run it again after an interruption; REMOVE=1 drops an unfinished import):
## SERVER_ADMIN_SECRET=... make import-organization SERVER_URL=https://chat.example.com \
##   ARCHIVE=zulip-export-abc.tar.gz STRING_ID=acme
import-organization:
	SERVER_URL="$(SERVER_URL)" scripts/import-organization.py $(if $(REMOVE),--remove "$(STRING_ID)","$(ARCHIVE)" "$(STRING_ID)")
## Production: create or reuse the D1 databases, the R2 bucket and the secrets, apply every
## pending migration, then deploy (scripts/deploy.sh; after `npx wrangler login`):
## ROOT_DOMAIN=chat.acme.com [ZONE=acme.com] make deploy
deploy: build
	scripts/deploy.sh

## A first check of a deployment that creates nothing: make smoke SERVER_URL=https://chat.acme.com
smoke:
	SERVER_URL="$(SERVER_URL)" scripts/smoke.sh

## D1 Time Travel: record a bookmark of every production database, or restore them all.
restore-point:
	scripts/restore.sh point
restore:
	scripts/restore.sh restore "$(BOOKMARK)"

## The production bundle without an account (CI): its size beside Workers' 64 MiB limit.
dry-run: build
	$(WRANGLER) deploy --dry-run --env production --outdir build/dry-run 2>&1 | python3 -c '\
	import re, sys; text = sys.stdin.read(); m = re.search(r"Total Upload: ([0-9.]+) KiB / gzip: ([0-9.]+) KiB", text); \
	m or sys.exit("dry run failed:\n" + text); raw, gz = map(float, m.groups()); \
	print(f"production bundle: {raw:,.0f} KiB of the 64 MiB limit ({raw / 65536:.1%}); gzip {gz:,.0f} KiB of 10 MiB (paid plan) / 3 MiB (free)")'

## Dependency licences, bans and sources (deny.toml). Advisories are not checked: the
## RustSec database lives on GitHub, which this machine cannot reach.
CARGO_DENY_VERSION := 0.20.2
deny:
	@cargo deny --version 2>/dev/null | grep -q "$(CARGO_DENY_VERSION)" || cargo install --locked cargo-deny --version "$(CARGO_DENY_VERSION)"
	cargo deny --offline check licenses bans sources

# The official JavaScript client (zulip-js), for tests/zulip_js_client.rs.
tests/js/node_modules/.installed: tests/js/package.json tests/js/package-lock.json
	cd tests/js && npm ci --no-audit --no-fund --silent
	touch $@

# The official terminal client and tmux, for tests/zulip_terminal.rs. zulip-term 0.7.0
# declares Python < 3.11 but runs on newer ones; its own venv keeps its pins apart.
.venv-zterm/.installed:
	command -v tmux >/dev/null || (apt-get update -qq && apt-get install -y -qq tmux) || (sudo apt-get update -qq && sudo apt-get install -y -qq tmux)
	python3 -m venv .venv-zterm
	.venv-zterm/bin/pip install --quiet --ignore-requires-python zulip-term==0.7.0
	touch $@

# The official bot runner (zulip-run-bot), for tests/bot_client.rs.
.venv-test/.bots-installed: .venv-test/.installed
	.venv-test/bin/pip install --quiet zulip_bots==0.9.1
	touch $@

# The tus client (tuspy), for tests/tus_uploads.rs.
.venv-test/.tus-installed: .venv-test/.installed
	.venv-test/bin/pip install --quiet tuspy==1.1.0
	touch $@

# The bench's floor: a second, tiny worker (examples/bare-worker), built as the server is.
BARE_WORKER := examples/bare-worker/build/worker/shim.mjs

# Heartbeat and idle timeout at Zulip's values, so waiting long-polls stay waiting.
# Then the web client on the same server: JS + CSS of the first page (gzip) and the time from
# a signed-in page load to the first messages painted, beside the register + GET /messages
# it needs (web/test/bench.mjs).
bench: build $(BARE_WORKER) $(CHROMIUM)
	EVENT_QUEUE_HEARTBEAT_SECS=50 EVENT_QUEUE_IDLE_TIMEOUT_SECS=600 scripts/with-test-server.sh --log-level warn \
	  bash -c 'cargo run --release --locked --example bench && cd web && node test/bench.mjs'

$(BARE_WORKER): examples/bare-worker/src/lib.rs examples/bare-worker/Cargo.toml Cargo.lock | setup
	cd examples/bare-worker && WASM_BINDGEN_BIN="$$(command -v wasm-bindgen)" \
	  ESBUILD_BIN="$(CURDIR)/node_modules/.bin/esbuild" worker-build --release
	node_modules/.bin/wasm-opt -Oz --strip-debug $(WASM_FEATURES) examples/bare-worker/build/index_bg.wasm \
	  -o examples/bare-worker/build/index_bg.wasm
	touch $@

## Rendering a 10,000-character message mixing every construct, natively and in the
## worker (KaTeX on and off), beside Workers' CPU time per request (examples/render_bench.rs).
bench-render: build
	scripts/with-test-server.sh --log-level warn cargo run --release --locked --example render_bench

setup: toolchain node_modules/.installed

toolchain:
	@rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
	@worker-build --version 2>/dev/null | grep -q "$(WORKER_BUILD_VERSION)" || cargo install worker-build --version "$(WORKER_BUILD_VERSION)"
	@wasm-bindgen --version 2>/dev/null | grep -q "$(WASM_BINDGEN_VERSION)" || cargo install wasm-bindgen-cli --version "$(WASM_BINDGEN_VERSION)"

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# worker-build would download wasm-bindgen and esbuild; point it at local copies. It runs
# only when an input changed: even with nothing to compile, wasm-opt alone takes a minute.
# wasm-opt runs here rather than in worker-build, which keeps the name section: names cost
# about 200 KiB of the gzip bundle, and panics still say where they happened. The features
# are those workerd supports (worker-build's list).
BUILD_INPUTS := $(shell find src durable-objects -type f) build.rs Cargo.toml Cargo.lock package-lock.json
WASM_FEATURES := $(addprefix --enable-,mutable-globals sign-ext nontrapping-float-to-int bulk-memory multivalue reference-types exception-handling)
build: build/worker/shim.mjs web/dist/index.html
build/worker/shim.mjs: $(BUILD_INPUTS) | setup
	WASM_BINDGEN_BIN="$$(command -v wasm-bindgen)" \
	ESBUILD_BIN="$(CURDIR)/node_modules/.bin/esbuild" \
	worker-build --release
	node_modules/.bin/wasm-opt -Oz --strip-debug $(WASM_FEATURES) build/index_bg.wasm -o build/index_bg.wasm
	touch $@

# The web client (web/), which the worker serves as static assets from web/dist.
WEB_INPUTS := $(shell find web -type f -not -path 'web/node_modules/*' -not -path 'web/dist/*' -not -path 'web/test-results/*' 2>/dev/null)
web/dist/index.html: $(WEB_INPUTS) web/node_modules/.installed
	cd web && npm run build
	touch $@

web/node_modules/.installed: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@

# Every D1 database of wrangler.toml gets the same migrations (src/platform/directory.rs).
D1_BINDINGS := DB DB_2
migrate-dev: node_modules/.installed
	for db in $(D1_BINDINGS); do $(WRANGLER) d1 migrations apply $$db --local --persist-to $(DEV_STATE); done

clean:
	rm -rf build examples/bare-worker/build target .wrangler .venv-test .venv-fuzz .venv-zterm tests/js/node_modules web/node_modules web/dist
