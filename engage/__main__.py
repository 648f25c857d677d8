"""`python -m engage ...` runs the `engage` command, as `python -m engage_cli` does."""

from engage_cli.main import main

main()
