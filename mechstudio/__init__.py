"""Mechanism Studio: build planar and spatial mechanisms and simulate them with constrained multibody dynamics.

The one top-level import package of the project. Its subpackages:

* :mod:`mechstudio.core` — the headless engine (models, kinematics, dynamics, command line); never imports Qt;
* :mod:`mechstudio.gui` — the Qt editor and live view.

The repository keeps them as the top-level folders ``core/`` and ``gui/``; this folder links to them
(``mechstudio/core -> ../core``, ``mechstudio/gui -> ../gui``), so a checkout, an editable install, a built
wheel and tools that read the package tree (import-linter, type checkers) all see one package ``mechstudio``.
"""
#: the release; pyproject.toml reads it from here (the one place it is written)
__version__ = "0.2.0"

__all__ = ["__version__"]
