"""``python -m shellport``: the same as the ``shellport`` console script."""

from ._cli import main

main()
