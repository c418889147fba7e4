"""`python -m rampup` is the `rampup` command."""

from .cli import main

main()
