"""Entry point of the benchmark's child processes (see spbench/child.py)."""

from spbench.child import main

if __name__ == "__main__":
    main()
