"""``python -m mechstudio.gui [open FILE | COMMAND ...]`` — same as the ``mechstudio`` console script."""
import sys

from mechstudio.gui.cli import main

sys.exit(main())
