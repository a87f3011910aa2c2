# Wheel targets (scripts/build-wheels; see its README.md and docs/PACKAGING.md).
#
#   make wheel-smoke   the native wheel, checked, installed offline in a fresh
#                      venv and smoke-tested (library and process transports,
#                      and both again through the spawn helper); make test runs it
#   make wheels        every wheel this machine can build into dist/, checked
#                      (auditwheel for manylinux), rebuilt to prove the bytes
#                      are reproducible, and smoke-tested (aarch64 under qemu)
#   make wheel-tools   build/tools-venv with auditwheel and zig (Linux)
#   make helpers       the spawn helper for every OS/arch this machine can build

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

.PHONY: wheels wheel-smoke wheel-tools helpers

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

wheels: wheel-tools
	rm -rf dist
	ZIG="$(ZIG)" $(WHEEL_BUILD) build --targets $(WHEEL_TARGETS) --out dist
	$(WHEEL_BUILD) check $(if $(filter Linux,$(shell uname -s)),--require-auditwheel) dist/*.whl
	ZIG="$(ZIG)" $(WHEEL_BUILD) repro dist/*.whl
	$(WHEEL_BUILD) smoke $$($(WHEEL_BUILD) native-wheel dist)
ifeq ($(WHEEL_HOST),Linux-x86_64)
	$(WHEEL_BUILD) smoke-qemu dist/*-manylinux_2_17_aarch64.*.whl
endif
	@ls -l dist

# The spawn helper for every OS/arch this machine can build, into
# build/helpers/OS_ARCH/ (GoReleaser's before hook puts them in its archives).
helpers: wheel-tools
	rm -rf build/helpers
	ZIG="$(ZIG)" $(WHEEL_BUILD) helpers --out build/helpers
