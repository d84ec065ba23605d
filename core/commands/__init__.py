"""Headless subcommands of ``mechstudio`` (and ``python -m mechstudio.core``): one module per command.

Each module defines ``register(subparsers)`` that adds its parser and sets ``func`` to a callable taking the
parsed arguments and returning an exit code. Add a new command by writing its module and naming it in
``COMMAND_MODULES`` (command name -> module). ``arguments`` and ``output`` hold the conventions they share (they are
not commands).
"""
#: the command each module registers (``mechstudio <command>``) -> its module in this package
COMMAND_MODULES = {"info": "info", "kinematics": "kinematics", "simulate": "simulate", "equations": "equations",
                   "bench": "bench", "samples": "samples", "sweep": "sweep", "import": "import_pyslvs",
                   "export-mjcf": "export_mjcf", "draw": "draw", "warm": "warm", "statics": "statics",
                   "linkage": "linkage", "modes": "modes", "synthesize": "synthesize"}
