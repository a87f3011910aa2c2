# Benchmark targets (bench/), included by the top Makefile.
#
#   make bench        the full run against the peers (about 10 minutes on 2
#                     cores): bench/.venv with the pinned peers from PyPI,
#                     then bench/results/<date>.json, docs/BENCHMARKS.md and
#                     docs/benchmarks.png
#   make bench-smoke  the same harness at tiny sizes with the main .venv and
#                     no peers (about 10 seconds; part of `make test`); its
#                     JSON and report go to a temporary directory

BENCH_VENV := bench/.venv

.PHONY: bench bench-smoke

bench:
	@t0=$$(date +%s); \
	$(MAKE) --no-print-directory native && \
	$(PYTHON) bench/setup_venv.py && \
	BENCH_T0=$$t0 $(BENCH_VENV)/bin/python bench/run.py --out bench/results --docs docs \
		--peers $(BENCH_VENV)/peers.json

# A passing smoke run reads as one: no PROBLEM or MISSED line (peers are
# absent by design and targets are not judged at smoke sizes; issue 11).
bench-smoke: native venv
	@d=$$(mktemp -d); \
	$(VPY) bench/run.py --smoke --out $$d --docs $$d >$$d/log 2>&1; rc=$$?; cat $$d/log; \
	if [ $$rc -eq 0 ] && grep -qE 'PROBLEM|MISSED' $$d/log; then \
	  echo "bench-smoke: a passing smoke run printed PROBLEM or MISSED"; rc=1; fi; \
	rm -rf $$d; exit $$rc
