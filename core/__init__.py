"""Mechanism Studio's numerical engine: models, kinematics, dynamics. Never imports Qt, OpenGL or gui.

Public API::

    from mechstudio.core import load_model, compile_model
    model = load_model("sample_models/four_bar.json")
    system = compile_model(model)

Importing ``core`` does not change the process's BLAS threads: a run limits them to one while it computes
(``mechstudio.core.run.blas``). Layers of the package: docs/architecture.md.
"""
from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.model import Model, load_model, loads_model, save_model
from mechstudio.core.systems.compile import compile_model

__all__ = ["Diagnostic", "Model", "ModelError", "compile_model", "load_model", "loads_model", "save_model"]
