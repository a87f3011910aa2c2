# Wheel targets (scripts/build-wheels; see its README.md and docs/PACKAGING.md).
#
#   make wheel-smoke   the native wheel, checked, installed offline in a fresh
#                      venv and smoke-tested (library and process transports,
#                      and both again through the spawn helper); make test runs it
#   make wheels        every wheel this machine can build into dist/, checked
#                      (auditwheel for manylinux), rebuilt to prove the bytes
#                      are reproducible, and smoke-tested (aarch64 under qemu)
#                      and compared byte for byte with GoReleaser's build of
#                      the same recipe (goreleaser-identity)
#   make wheel-tools   build/tools-venv with auditwheel and zig (Linux)
#   make helpers       the spawn helper for every OS/arch this machine can build
#   make goreleaser-config   rewrite .goreleaser.yml from the recipe
#   make goreleaser-identity GoReleaser's snapshot build == the wheels' files

WHEEL_BUILD  := $(PYTHON) scripts/build-wheels/build.py
WHEEL_SMOKE  := build/wheel-smoke
WHEEL_HOST   := $(shell uname -s)-$(shell uname -m)

# What `make wheels` builds here. A Linux x86_64 host builds everything
# (macOS wheels without the dylib, which needs a macOS toolchain); a macOS
# host builds the macOS wheels with their dylibs.
ifeq ($(WHEEL_HOST),Linux-x86_64)
WHEEL_TARGETS ?= all
else ifeq ($(shell uname -s),Darwin)
WHEEL_TARGETS ?= macos-x86_64,macos-arm64
else
WHEEL_TARGETS ?= native
endif

.PHONY: wheels wheel-smoke wheel-tools helpers goreleaser-config goreleaser-identity

# GoReleaser, pinned in the recipe, from the Go module proxy into
# build/tools-bin (unless GORELEASER names another).
GORELEASER_VERSION := $(call recipe,tools goreleaser)
GORELEASER_DEFAULT := build/tools-bin/goreleaser
GORELEASER         ?= $(GORELEASER_DEFAULT)

$(WHEEL_TOOLS)/bin/python:
	$(PYTHON) -m venv $(WHEEL_TOOLS)

$(WHEEL_TOOLS)/bin/auditwheel: $(WHEEL_TOOLS)/bin/python
	$(WHEEL_TOOLS)/bin/python -m pip install --quiet --disable-pip-version-check auditwheel

$(ZIG_STAMP): $(WHEEL_TOOLS)/bin/python
	$(WHEEL_TOOLS)/bin/python -m pip install --quiet --disable-pip-version-check ziglang==$(ZIGLANG_VERSION)
	touch $@

wheel-tools: $(if $(filter Linux,$(shell uname -s)),$(WHEEL_TOOLS)/bin/auditwheel $(ZIG_STAMP))

# Every wheel carries the helper; the smoke test runs each transport with
# the one beside the native files and again through SHELLPORT_SPAWN_HELPER
# (a wrapper that records its use), to prove both lookups.
wheel-smoke: venv wheel-tools
	$(VPY) -m pytest -q scripts/build-wheels
	rm -rf $(WHEEL_SMOKE)
	$(WHEEL_BUILD) build --targets native --out $(WHEEL_SMOKE)
	$(WHEEL_BUILD) check $(if $(filter Linux,$(shell uname -s)),--require-auditwheel) $(WHEEL_SMOKE)/*.whl
	$(WHEEL_BUILD) smoke $(WHEEL_SMOKE)/*.whl

# WHEEL_TARGETS=name,... builds fewer; the smoke tests then cover what of
# them runs here (smoke-dist), and the GoReleaser comparison what of them
# GoReleaser builds on this OS.
wheels: wheel-tools
	rm -rf dist
	ZIG="$(ZIG)" $(WHEEL_BUILD) build --targets $(WHEEL_TARGETS) --out dist
	$(WHEEL_BUILD) check $(if $(filter Linux,$(shell uname -s)),--require-auditwheel) dist/*.whl
	ZIG="$(ZIG)" $(WHEEL_BUILD) repro dist/*.whl
	$(WHEEL_BUILD) smoke-dist dist
	$(MAKE) --no-print-directory goreleaser-identity
	@ls -l dist

$(GORELEASER_DEFAULT): $(RECIPE)
	GOBIN=$(CURDIR)/build/tools-bin $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	touch $@

goreleaser-config:
	$(WHEEL_BUILD) goreleaser

goreleaser-identity: $(filter $(GORELEASER_DEFAULT),$(GORELEASER))
	GORELEASER="$(GORELEASER)" $(WHEEL_BUILD) goreleaser-identity dist/*.whl

# The spawn helper for every OS/arch this machine can build, into
# build/helpers/OS_ARCH/ (GoReleaser's before hook puts them in its archives).
helpers: wheel-tools
	rm -rf build/helpers
	ZIG="$(ZIG)" $(WHEEL_BUILD) helpers --out build/helpers
