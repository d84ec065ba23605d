"""Compile the numba kernels once into their on-disk cache: the same as ``mechstudio warm`` (the command lives in
the package, :mod:`mechstudio.core.commands.warm`; this script is kept for old instructions)."""
import sys

from mechstudio.core.cli import main

if __name__ == "__main__":
    sys.exit(main(["warm", *sys.argv[1:]]))
