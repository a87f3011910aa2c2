# shellport — build, demo and test. `make demo` and `make test` work on a
# fresh machine with Go and Python 3.9+; they install what else they need.

GO      ?= go
PYTHON  ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
NATIVE  := python/src/shellport/_native
LIBNAME := $(if $(filter Darwin,$(shell uname -s)),libshellport.dylib,libshellport.so)
GOFILES := $(shell find . -name '*.go' -not -path './.venv/*' -not -path './bench/.venv/*')

.PHONY: all native venv demo test test-go test-python test-remote lint header header-check fuzz clean

all: native

# The shared library and the executable for this machine, where the Python
# package looks for them.
native: $(NATIVE)/$(LIBNAME) $(NATIVE)/shellport

$(NATIVE)/$(LIBNAME): $(GOFILES) go.mod go.sum
	mkdir -p $(NATIVE)
	$(GO) build -trimpath -buildmode=c-shared -o $@ ./capi
	mkdir -p build && mv $(NATIVE)/libshellport.h build/libshellport.h

$(NATIVE)/shellport: $(GOFILES) go.mod go.sum
	mkdir -p $(NATIVE)
	CGO_ENABLED=0 $(GO) build -trimpath -o $@ ./cmd/shellport

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

lint: venv
	@test -z "$$(gofmt -l $(GOFILES))" || (echo "gofmt would change:"; gofmt -l $(GOFILES); exit 1)
	$(GO) vet ./...
	$(VPY) -m ruff check python/src python/tests examples
	$(VPY) -m ruff format --check python/src python/tests
	cd python && ../$(VPY) -m mypy --strict src/shellport

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

test: lint header-check test-go test-python test-remote wheel-smoke bench-smoke
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

# Wheels (scripts/build-wheels) and benchmarks (bench/) keep their targets
# beside their code.
include scripts/build-wheels/wheels.mk
include bench/bench.mk

clean:
	rm -rf $(NATIVE) build dist
