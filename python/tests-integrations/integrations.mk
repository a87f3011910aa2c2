# Harness integration targets (python/tests-integrations), included by the
# top Makefile.
#
#   make test-integrations   build/integrations-venv with the shellport extras
#                            and the pinned harnesses of requirements.txt
#                            (rebuilt only when requirements.txt or
#                            python/pyproject.toml change), then mypy --strict
#                            over the whole package with the harnesses' own
#                            types, and the scripted trajectories, the MCP
#                            client test and the ACP validation; make test
#                            runs it. Nothing but the installs uses the network.

IVENV := build/integrations-venv
IPY   := $(IVENV)/bin/python
IREQ  := python/tests-integrations/requirements.txt

.PHONY: test-integrations

$(IVENV)/.installed: $(IREQ) python/pyproject.toml
	rm -rf $(IVENV)
	$(PYTHON) -m venv $(IVENV)
	$(IPY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(IPY) -m pip install --quiet --disable-pip-version-check \
		-e 'python[mini-swe-agent,inspect-ai,openai-agents,mcp]' -r $(IREQ)
	touch $@

test-integrations: native $(IVENV)/.installed
	cd python && ../$(IPY) -m mypy --strict src/shellport
	MSWEA_SILENT_STARTUP=1 INSPECT_LOG_DIR=$(CURDIR)/build/inspect-logs \
		$(IPY) -m pytest -q -p no:cacheprovider python/tests-integrations
