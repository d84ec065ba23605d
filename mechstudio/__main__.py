"""``python -m mechstudio [open FILE | COMMAND ...]`` — the same as the ``mechstudio`` console script."""
import sys

from mechstudio.gui.cli import main

sys.exit(main())
