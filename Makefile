# shellport — build, demo and test. `make demo` and `make test` work on a
# fresh machine with Go and Python 3.9+; they install what else they need.

GO      ?= go
PYTHON  ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
NATIVE  := python/src/shellport/_native
LIBNAME := $(if $(filter Darwin,$(shell uname -s)),libshellport.dylib,libshellport.so)
GOFILES := $(shell find . -name '*.go' -not -path './.venv/*' -not -path './bench/.venv/*')

.PHONY: all native venv demo test test-go test-python lint header header-check fuzz clean

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
	$(VPY) -m ruff check python/src python/tests python/tests-integrations examples
	$(VPY) -m ruff format --check python/src python/tests python/tests-integrations
	@# The integrations import their harnesses, which live only in the
	@# integrations venv: test-integrations type-checks them there.
	cd python && ../$(VPY) -m mypy --strict --exclude 'shellport/integrations/' src/shellport

test-go:
	$(GO) test -race -count=1 ./...

test-python: native venv
	$(VPY) -m pytest -q python/tests

test: lint header-check test-go test-python test-integrations wheel-smoke bench-smoke
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
