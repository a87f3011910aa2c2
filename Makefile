# shellport — build, demo and test. `make demo` and `make test` work on a
# fresh machine with Go and Python 3.9+; they install what else they need.

GO      ?= go
PYTHON  ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
NATIVE  := python/src/shellport/_native
LIBNAME := $(if $(filter Darwin,$(shell uname -s)),libshellport.dylib,libshellport.so)
GOFILES := $(shell find . -name '*.go' -not -path './.venv/*' -not -path './bench/.venv/*')

# The spawn helper is C (cmd/shellport-spawn-helper): the same flags here,
# in the wheel builder (scripts/build-wheels/targets.py) and in the Go
# tests (internal/testkit). Static on Linux, so it runs on any libc.
HELPER        := shellport-spawn-helper
HELPER_DIR    := cmd/shellport-spawn-helper
HELPER_SRC    := $(wildcard $(HELPER_DIR)/*.c $(HELPER_DIR)/*.h)
HELPER_CFLAGS := -std=c11 -O2 -Wall -Wextra -Werror
HELPER_LINK   := $(if $(filter Darwin,$(shell uname -s)),,-static) -s

# Build tools from PyPI live in their own venv: auditwheel, and zig, whose C
# compiler builds and checks the macOS spawn helper on Linux (pinned: the
# compiler is part of what makes the bytes).
WHEEL_TOOLS     := build/tools-venv
ZIGLANG_VERSION := 0.15.2
ZIG             := $(WHEEL_TOOLS)/bin/python -m ziglang
ZIG_STAMP       := $(WHEEL_TOOLS)/.ziglang-$(ZIGLANG_VERSION)

.PHONY: all native venv demo test test-go test-python test-remote lint lint-helper header header-check fuzz clean

all: native

# The shared library, the executable and the spawn helper for this
# machine, where the Python package looks for them.
native: $(NATIVE)/$(LIBNAME) $(NATIVE)/shellport $(NATIVE)/$(HELPER)

$(NATIVE)/$(LIBNAME): $(GOFILES) go.mod go.sum
	mkdir -p $(NATIVE)
	$(GO) build -trimpath -buildmode=c-shared -o $@ ./capi
	mkdir -p build && mv $(NATIVE)/libshellport.h build/libshellport.h

$(NATIVE)/shellport: $(GOFILES) go.mod go.sum
	mkdir -p $(NATIVE)
	CGO_ENABLED=0 $(GO) build -trimpath -o $@ ./cmd/shellport

$(NATIVE)/$(HELPER): $(HELPER_SRC)
	mkdir -p $(NATIVE)
	$(CC) $(HELPER_CFLAGS) $(HELPER_LINK) -o $@ $(HELPER_DIR)/*.c

# The checked-in C header is what cgo generates: `make header` refreshes it
# and `make test` fails when it is stale.
header: native
	cp build/libshellport.h capi/libshellport.h

header-check: native
	@cmp -s build/libshellport.h capi/libshellport.h || (echo "capi/libshellport.h is stale: run make header"; exit 1)

$(VENV)/.installed: python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e 'python[dev]'
	touch $@

venv: $(VENV)/.installed

demo: native venv
	$(VPY) examples/demo.py

lint: venv lint-helper
	@test -z "$$(gofmt -l $(GOFILES))" || (echo "gofmt would change:"; gofmt -l $(GOFILES); exit 1)
	$(GO) vet ./...
	$(VPY) -m ruff check python/src python/tests python/tests-integrations examples
	$(VPY) -m ruff format --check python/src python/tests python/tests-integrations
	@# The integrations import their harnesses, which live only in the
	@# integrations venv: test-integrations type-checks them there.
	cd python && ../$(VPY) -m mypy --strict --exclude 'shellport/integrations/' src/shellport

# The helper's macOS build (the exec shim, no supervisor) is compiled and
# linked here too, with zig's clang for both Mac architectures, so a Linux
# machine catches what would break it; the CI's macOS jobs build it with
# Apple clang.
lint-helper: $(ZIG_STAMP)
	$(CC) $(HELPER_CFLAGS) -fsyntax-only $(HELPER_DIR)/*.c
	for target in x86_64-macos.12.0 aarch64-macos.12.0; do \
	  mkdir -p build/helper-check/$$target && \
	  $(ZIG) cc -target $$target $(HELPER_CFLAGS) -o build/helper-check/$$target/$(HELPER) $(HELPER_DIR)/*.c || exit 1; \
	done

test-go:
	$(GO) test -race -count=1 ./...

test-python: native venv
	$(VPY) -m pytest -q python/tests --ignore=python/tests/remote

# The runtime inside real sandboxes (python/tests/remote): podman on a rootfs
# built from this machine's busybox and bash, sshd on 127.0.0.1 with a
# throw-away user, unshare, and the heartbeat through a kubectl stand-in.
# Needs root and the Debian packages .ci/run installs; a sandbox that cannot
# start is skipped with its reason, unless REMOTE_FLAGS=--require-remote (as
# in .ci/run) makes that a failure.
REMOTE_FLAGS ?=
test-remote: native venv
	$(VPY) -m pytest -q -rs python/tests/remote $(REMOTE_FLAGS)

test: lint header-check test-go test-python test-integrations test-remote wheel-smoke bench-smoke
	@echo "all tests passed"

# A short run of every fuzz target (FUZZTIME each; the corpora under
# testdata/fuzz always run as part of test-go). New targets are found by
# name, so nothing here needs editing when one is added.
FUZZTIME ?= 5s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$target"; \
	    $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# Wheels (scripts/build-wheels), benchmarks (bench/) and the harness
# integration tests (python/tests-integrations) keep their targets beside
# their code.
include scripts/build-wheels/wheels.mk
include bench/bench.mk
include python/tests-integrations/integrations.mk

clean:
	rm -rf $(NATIVE) build dist
