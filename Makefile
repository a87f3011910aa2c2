# shellport — build, demo and test. What each command needs and installs is
# in README.md ("The two commands"): `make demo` needs Go, a C compiler and
# Python 3.9+; `make test` needs Python 3.11+ and installs what else it needs.

GO      ?= go
PYTHON  ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
NATIVE  := python/src/shellport/_native
LIBNAME := $(if $(filter Darwin,$(shell uname -s)),libshellport.dylib,libshellport.so)
GOFILES := $(shell find . -name '*.go' -not -path './.venv/*' -not -path './bench/.venv/*' -not -path './build/*')

# The one native build recipe (flags, pins, target versions of the library,
# the executable, the C spawn helper and the bash turn builtin) is
# scripts/build-wheels/recipe.json:
# `make native` builds this machine's files with it through targets.py, as
# the wheels and GoReleaser do (docs/PACKAGING.md).
RECIPE       := scripts/build-wheels/recipe.json
recipe        = $(shell $(PYTHON) -c 'import json, sys; r = json.load(open("$(RECIPE)")); [r := r[k] for k in sys.argv[1:]]; print(r)' $(1))
NATIVE_BUILD := $(PYTHON) scripts/build-wheels/targets.py native
HELPER       := shellport-spawn-helper
HELPER_SRC   := $(wildcard cmd/shellport-spawn-helper/*.c cmd/shellport-spawn-helper/*.h)
# The bash turn builtin: Linux only (the persistent shell runs its driver
# loop as shell commands without it).
BASH_TURN        := shellport-bash-turn.so
BASH_TURN_SRC    := $(wildcard cmd/shellport-bash-turn/*.c)
BASH_TURN_NATIVE := $(if $(filter Linux,$(shell uname -s)),$(NATIVE)/$(BASH_TURN))

# Build tools from PyPI live in their own venv: auditwheel, and zig, whose C
# compiler builds and checks the macOS spawn helper on Linux (pinned: the
# compiler is part of what makes the bytes).
WHEEL_TOOLS     := build/tools-venv
ZIGLANG_VERSION := $(call recipe,tools ziglang)
ZIG             := $(CURDIR)/$(WHEEL_TOOLS)/bin/python -m ziglang
ZIG_STAMP       := $(WHEEL_TOOLS)/.ziglang-$(ZIGLANG_VERSION)

.PHONY: all native venv demo test test-go test-bash-versions test-python test-py39 test-remote lint lint-helper lint-darwin recipe-check python-version header header-check fuzz mutation clean

all: native

# The shared library, the executable, the spawn helper and (Linux) the
# bash turn builtin for this machine, where the Python package looks for
# them.
native: $(NATIVE)/$(LIBNAME) $(NATIVE)/shellport $(NATIVE)/$(HELPER) $(BASH_TURN_NATIVE)

$(NATIVE)/$(LIBNAME): $(GOFILES) go.mod go.sum $(RECIPE) scripts/build-wheels/glibc217.h
	$(NATIVE_BUILD) library --out $(NATIVE) --header build/libshellport.h

$(NATIVE)/shellport: $(GOFILES) go.mod go.sum $(RECIPE)
	$(NATIVE_BUILD) executable --out $(NATIVE)

$(NATIVE)/$(HELPER): $(HELPER_SRC) $(RECIPE)
	$(NATIVE_BUILD) helper --out $(NATIVE)

$(NATIVE)/$(BASH_TURN): $(BASH_TURN_SRC) $(RECIPE)
	$(NATIVE_BUILD) bash-turn --out $(NATIVE)

# The checked-in C header is what cgo generates: `make header` refreshes it
# and `make test` fails when it is stale.
header: native
	cp build/libshellport.h capi/libshellport.h

header-check: native
	@cmp -s build/libshellport.h capi/libshellport.h || (echo "capi/libshellport.h is stale: run make header"; exit 1)

# make test's tools run here and the wheel builder needs tomllib: 3.11+.
python-version:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "make test needs Python 3.11+ (the wheel builder reads pyproject.toml with tomllib); $(PYTHON) is $$($(PYTHON) -V 2>&1). Set PYTHON=python3.11 or newer. (The package itself runs on 3.9+, and make demo needs only that.)"; exit 1; }

# The dev venv: the package (editable) with pytest, mypy, ruff and hatchling.
$(VENV)/.installed: python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e 'python[dev]'
	touch $@

venv: $(VENV)/.installed

# The demo venv holds the package alone (editable, no extras), as a user
# would install it; the demo needs nothing else.
DEMO_VENV := build/demo-venv
$(DEMO_VENV)/.installed: python/pyproject.toml
	rm -rf $(DEMO_VENV)
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e python
	touch $@

demo: native $(DEMO_VENV)/.installed
	$(DEMO_VENV)/bin/python examples/demo.py

lint: venv lint-helper lint-darwin recipe-check
	@test -z "$$(gofmt -l $(GOFILES))" || (echo "gofmt would change:"; gofmt -l $(GOFILES); exit 1)
	$(GO) vet ./...
	@# Without cgo (a cross-build of the executable): the library's package drops out whole.
	CGO_ENABLED=0 $(GO) build ./...
	GOOS=darwin CGO_ENABLED=0 $(GO) vet ./... && GOOS=darwin CGO_ENABLED=0 $(GO) build ./...
	$(VPY) -m ruff check python/src python/tests python/tests-integrations python/hatch_build.py examples bench
	$(VPY) -m ruff format --check python/src python/tests python/tests-integrations python/hatch_build.py bench
	@# The integrations import their harnesses, which live only in the
	@# integrations venv: test-integrations type-checks them there.
	cd python && ../$(VPY) -m mypy --strict --exclude 'shellport/integrations/' src/shellport
	@# The package (and what make demo runs) supports Python 3.9: no syntax or
	@# standard-library use newer than 3.9 (mypy no longer targets 3.9).
	$(VENV)/bin/vermin -q -t=3.9- --no-tips --violations --eval-annotations \
		python/src/shellport python/hatch_build.py scripts/build-wheels/targets.py examples/demo.py

# The spawn helper for every OS/arch this machine can build, from the recipe
# with warnings as errors: on Linux x86_64 that is static gcc (and the
# aarch64 cross gcc where installed) and, with zig's clang, both Mac
# architectures (the exec shim, no supervisor), so a Linux machine catches
# what would break the macOS build; the CI's macOS jobs build it with Apple
# clang.
lint-helper: $(ZIG_STAMP)
	rm -rf build/helper-check
	ZIG="$(ZIG)" $(PYTHON) scripts/build-wheels/build.py helpers --out build/helper-check

# go vet ./... as macOS builds it, for darwin/amd64 and darwin/arm64, the
# cgo packages (the library among them) compiled by zig's clang for macOS
# (linking the dylib needs Apple's SDK: the macOS runners do that).
lint-darwin: $(ZIG_STAMP)
	ZIG="$(ZIG)" $(PYTHON) scripts/build-wheels/build.py vet-darwin

# .goreleaser.yml is written from the recipe (make goreleaser-config).
recipe-check:
	$(PYTHON) scripts/build-wheels/build.py goreleaser --check

# go test -race, with every skipped test and its reason listed at the end
# (a skip must name a missing platform feature: scripts/gotest.py).
test-go:
	GO=$(GO) $(PYTHON) scripts/gotest.py -race -count=1 ./...

test-python: native venv
	$(VPY) -m pytest -q python/tests --ignore=python/tests/remote

# The same tests on Python 3.9, the oldest the package supports: its own
# python3.9, pyenv's, or Debian 11's packages unpacked under build/python3.9
# (scripts/python39/fetch.sh says how). pip is bootstrapped from a wheel,
# since Debian's 3.9 has no ensurepip.
PY39_DIR   := build/python3.9
PY39_VENV  := build/py39-venv
PY39_LIBS  := $(CURDIR)/$(PY39_DIR)/usr/lib/$(shell uname -m)-linux-gnu
PY39_RUN   := LD_LIBRARY_PATH=$(PY39_LIBS)$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}
$(PY39_VENV)/.installed: python/pyproject.toml scripts/python39/fetch.sh | venv
	rm -rf $(PY39_VENV) build/py39-wheels
	py=$$(sh scripts/python39/fetch.sh $(PY39_DIR)) && $(PY39_RUN) $$py -m venv --without-pip $(PY39_VENV)
	$(VPY) -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
		--python-version 3.9 --no-deps -d build/py39-wheels pip
	w=$$(echo build/py39-wheels/pip-*.whl) && $(PY39_RUN) $(PY39_VENV)/bin/python $$w/pip install \
		--quiet --disable-pip-version-check --no-index $$w
	$(PY39_RUN) $(PY39_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		-e python pytest pytest-asyncio hatchling
	touch $@

test-py39: native $(PY39_VENV)/.installed
	$(PY39_RUN) $(PY39_VENV)/bin/python -c 'import sys; assert sys.version_info[:2] == (3, 9), sys.version'
	$(PY39_RUN) $(PY39_VENV)/bin/python -m pytest -q -p no:cacheprovider python/tests --ignore=python/tests/remote

# The runtime inside real sandboxes (python/tests/remote): podman on a rootfs
# built from this machine's busybox and bash, sshd on 127.0.0.1 with a
# throw-away user, unshare, and the heartbeat through a kubectl stand-in.
# Needs root and the Debian packages .ci/run installs; a sandbox that cannot
# start is skipped with its reason, unless REMOTE_FLAGS=--require-remote (as
# in .ci/run) makes that a failure.
REMOTE_FLAGS ?=
test-remote: native venv
	$(VPY) -m pytest -q -rs python/tests/remote $(REMOTE_FLAGS)

# The persistent shell's loop on two other versions of bash (issue 16): the
# turn builtin is built against bash's exported functions. Debian 11's
# bash 5.1 and Debian unstable's newest are fetched into build/bash-versions
# (scripts/bash-versions/fetch.sh: downloaded with apt-get and unpacked,
# not installed; about 15 s) and each is put first on PATH for the loop's
# tests, which check that the shell is that bash and loaded the builtin.
# Linux with apt-get only.
BASH_VERSION_TESTS := TestTurnBuiltinLoadsOnThisBash|TestHostile|TestTrapped|TestTurn|TestStatePersists|TestScriptSemantics|TestScriptLoopPath|TestLegacyLoopPath|TestPredicted|TestDebugTrap|TestIFS|TestForged|TestTokenAbsent
test-bash-versions:
	@if [ "$$(uname -s)" != Linux ] || ! command -v apt-get >/dev/null; then 	  echo "test-bash-versions: skipped (needs Linux with apt-get)"; exit 0; fi; 	paths=$$(scripts/bash-versions/fetch.sh build/bash-versions) || exit 1; 	for path in $$paths; do 	  v=$$("$$path/bash" -c 'echo "$${BASH_VERSINFO[0]}.$${BASH_VERSINFO[1]}"') || exit 1; 	  echo "== the persistent shell's loop on bash $$v"; 	  PATH="$$path:$$PATH" SHELLPORT_TEST_BASH_VERSION=$$v 	    $(GO) test -count=1 -run '$(BASH_VERSION_TESTS)' ./internal/tools/persistent || exit 1; 	done

test: python-version lint header-check test-go test-bash-versions test-python test-py39 test-integrations test-remote wheel-smoke bench-smoke
	@echo "all tests passed"

# A short run of every fuzz target (FUZZTIME each; the corpora under
# testdata/fuzz always run as part of test-go). New targets are found by
# name, so nothing here needs editing when one is added; scripts/fuzz.sh
# says which failure of Go's own fuzzing coordinator it forgives and why.
FUZZTIME ?= 5s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# Mutation testing, outside make test (docs/TESTING.md): gremlins on each Go
# core package against its own tests, mutmut on the Python client against
# its unit tests, one worker each; the scores and the surviving mutants go
# to build/mutation/summary.md. MUTATION_FLAGS narrows it, e.g.
# MUTATION_FLAGS="--go internal/rpc --skip-python". All of it takes about
# 50 minutes on 2 shared cores.
MUTATION_FLAGS ?=
mutation: native
	GO=$(GO) $(PYTHON) scripts/mutation.py $(MUTATION_FLAGS)

# Wheels (scripts/build-wheels), benchmarks (bench/) and the harness
# integration tests (python/tests-integrations) keep their targets beside
# their code.
include scripts/build-wheels/wheels.mk
include bench/bench.mk
include python/tests-integrations/integrations.mk

clean:
	rm -rf $(NATIVE) build dist
