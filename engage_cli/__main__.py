"""`python -m engage_cli` is the same as the `engage` console script."""

from engage_cli.main import main

main()
