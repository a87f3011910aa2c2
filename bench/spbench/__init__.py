"""shellport's user-level benchmark: the Python API against its peers.

Run through ``make bench`` (full run, peers from PyPI in bench/.venv) or
``make bench-smoke`` (tiny sizes, main .venv, no installs). See
docs/BENCHMARKS.md for what every case measures.
"""
