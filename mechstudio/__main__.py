"""``python -m mechstudio [open FILE | COMMAND ...]`` — the same as the ``mechstudio`` console script
(:mod:`mechstudio.cli`)."""
import sys

from mechstudio.cli import main

sys.exit(main())
