# Benchmark targets (bench/). Filled in by the benchmark work.
.PHONY: bench bench-smoke
bench:
	@echo "bench: not written yet"
bench-smoke:
	@true
