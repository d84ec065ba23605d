"""Headless subcommands of ``mechstudio`` (and ``python -m mechstudio.core``): one module per command.

Each module defines ``register(subparsers)`` that adds its parser and sets ``func`` to a callable taking the
parsed arguments and returning an exit code. Add a new command by writing its module and naming it in
``COMMAND_MODULES``. ``arguments`` and ``output`` hold the conventions they share (they are not commands).
"""
COMMAND_MODULES = ["info", "kinematics", "simulate", "equations", "bench", "samples", "sweep", "import_pyslvs",
                   "export_mjcf", "draw", "warm", "statics", "linkage", "modes", "synthesize"]
