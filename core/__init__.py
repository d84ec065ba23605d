"""Mechanism Studio's numerical engine: models, kinematics, dynamics. Never imports Qt, OpenGL or gui.

Public API::

    from core import load_model, compile_model
    model = load_model("sample_models/four_bar.json")
    system = compile_model(model)

Importing ``core`` does not change the process's BLAS threads: a run limits them to one while it computes
(``core.run.blas``). Layers of the package: docs/architecture.md.
"""
from core.errors import Diagnostic, ModelError
from core.model import Model, load_model, loads_model, save_model
from core.system import compile_model

__all__ = ["Diagnostic", "Model", "ModelError", "compile_model", "load_model", "loads_model", "save_model"]
