"""Mechanism Studio's numerical engine: models, kinematics, dynamics. Never imports Qt, OpenGL or gui.

Public API::

    from core import load_model, compile_model
    model = load_model("sample_models/four_bar.json")
    system = compile_model(model)
"""
import os as _os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")  # for BLAS libraries loaded after this point

import numpy as _np  # noqa: E402,F401
import scipy.linalg as _sla  # noqa: E402,F401  (loads scipy's own OpenBLAS so the limit below reaches it)
import threadpoolctl as _threadpoolctl  # noqa: E402

# Our matrices are small (tens to a few hundred rows): a multi-threaded BLAS only adds thread wake-ups, and on a
# machine whose cores are busy its spinning threads make each small solve ~100x slower (measured: 2 ms instead of
# 20 us per LU solve). Keep BLAS single-threaded for the whole process.
_threadpoolctl.threadpool_limits(1, user_api="blas")

from core.errors import Diagnostic, ModelError  # noqa: E402
from core.model import Model, load_model, loads_model, save_model  # noqa: E402
from core.system import compile_model  # noqa: E402

__all__ = ["Diagnostic", "Model", "ModelError", "compile_model", "load_model", "loads_model", "save_model"]
