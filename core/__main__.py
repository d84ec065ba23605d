import sys

from mechstudio.core.cli import main

sys.exit(main())
