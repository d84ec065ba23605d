"""``python -m gui [open FILE | COMMAND ...]`` — same as the ``mechstudio`` console script."""
import sys

from gui.cli import main

sys.exit(main())
