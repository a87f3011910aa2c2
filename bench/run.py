"""Run shellport's benchmark (see spbench/ and docs/BENCHMARKS.md)."""

import sys

from spbench.runner import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
